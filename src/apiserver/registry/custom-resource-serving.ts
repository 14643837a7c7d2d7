// What the generic handler needs beyond a ResourceStore to serve a custom resource: its Table
// printer, its scale subresource, the fields its schema prunes (for fieldValidation) and whether its
// CRD is terminating. apiextensions-apiserver's crdHandler keeps the same per-version facts.
import type { KubeObject } from '../../api/object.js';
import type { JSONSchemaProps } from '../../api/types/apiextensions-v1.generated.js';
import type { KindPrinter } from '../printers/types.js';

/** The autoscaling/v1 Scale view of an object whose replicas live at CRD-given paths. */
export interface ScaleAdapter {
  toScale(object: KubeObject): KubeObject;
  /** The object with the Scale's desired replicas written to specReplicasPath. */
  withReplicas(object: KubeObject, replicas: number): KubeObject;
  /** The CRD's specReplicasPath (`.spec.replicas`): where the scale's managedFields map to. */
  readonly specReplicasPath: string;
}

export interface CustomResourceServing {
  readonly printer: KindPrinter;
  readonly scale?: ScaleAdapter;
  /** The warning every request to a deprecated version carries. */
  readonly deprecationWarning?: string;
  /** The paths of the fields the schema would prune from a request body (`spec.foo`). */
  unknownFields(object: KubeObject): string[];
  /** The version's structural schema (server-side apply builds its field sets from it). */
  readonly schema?: JSONSchemaProps;
  /**
   * Every version of the CRD (served or not) with its schema, by version name: managedFields
   * entries recorded at another version are converted to it (conversion `None`).
   */
  readonly versionSchemas?: ReadonlyMap<string, JSONSchemaProps | undefined>;
  /**
   * Every version's scale specReplicasPath by version name (undefined without a scale
   * subresource): the scale subresource's managedFields map to it (ResourcePathMappings).
   */
  readonly versionReplicasPaths?: ReadonlyMap<string, string | undefined>;
  /** Creates are refused while the CRD is being deleted. */
  terminating(): boolean;
}
