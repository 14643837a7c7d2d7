import type { KubeObject } from '../../api/object.js';
import type { ResourceInfo } from '../../api/resources/types.js';
import type { FieldError } from '../../api/selectors/field-errors.js';
import type { UserInfo } from '../http/types.js';

/** Metadata fields a status strategy may keep from the old object. */
export type StatusKeptMetadata = 'labels' | 'annotations' | 'finalizers' | 'ownerReferences';

/**
 * What differs between resources in the generic create/update/delete flow, in the spirit
 * of kube-apiserver's RESTCreateStrategy/RESTUpdateStrategy. Everything else is shared.
 */
export interface Strategy {
  /** Whether `metadata.generation` starts at 1 and is bumped on spec changes. */
  readonly tracksGeneration: boolean;
  /** Whether PUT may create a missing object. */
  readonly allowCreateOnUpdate: boolean;
  /** Whether an update without metadata.resourceVersion applies to the current object (else 422). */
  readonly allowUnconditionalUpdate: boolean;
  /** Whether the resource has a `status` subresource (status is then ignored on main-resource writes). */
  readonly hasStatus: boolean;
  /**
   * The metadata fields a status write takes from the old object (its status strategy's
   * PrepareForUpdate); the others change with the write, as upstream. `all`: the whole
   * metadata (flow control's strategies).
   */
  readonly statusKeepsMetadata: readonly StatusKeptMetadata[] | 'all';
  /** A decoding failure Kubernetes reports before defaulting (e.g. an unparsable quantity). */
  decodeError(object: KubeObject): string | undefined;
  /** Fills defaults in place (SetDefaults_*). */
  defaults(object: KubeObject): void;
  /**
   * Adjusts a new object before validation, e.g. resets its status or allocates an IP. `user` is
   * the requester (CSRs record who asked).
   */
  prepareForCreate(object: KubeObject, user?: UserInfo): void | Promise<void>;
  /**
   * Adjusts an update before validation, e.g. keeps the old status. `subresource` is `''` for the
   * main resource, or a subresource with a strategy of its own (`finalize` for namespaces).
   */
  prepareForUpdate(object: KubeObject, old: KubeObject, subresource: string): void | Promise<void>;
  /** Adjusts a status write after the generic status-only rules (CSRs keep their approval conditions). */
  prepareForStatusUpdate?(object: KubeObject, old: KubeObject): void;
  validateCreate(object: KubeObject): FieldError[];
  /** `subresource` as for prepareForUpdate, or `status`. */
  validateUpdate(object: KubeObject, old: KubeObject, subresource: string): FieldError[];
  /**
   * The grace period for a delete: 0 deletes at once; more marks the object with a
   * deletionTimestamp and leaves the final delete to its owner (the kubelet, for pods).
   */
  gracePeriodSeconds(object: KubeObject, requested: number | undefined): number;
  /** Values of the fields a field selector may use, beyond metadata.name and metadata.namespace. */
  selectableFields(object: KubeObject): Record<string, string>;
  /** The 400 text for a field selector on another field (the kind's field label conversion). */
  unsupportedFieldLabel?(label: string): string;
  /** Whether something other than metadata.finalizers holds a marked object back (namespaces' spec.finalizers). */
  finalizationPending(object: KubeObject): boolean;
  /** Adjusts an object being marked for deletion (namespaces turn Terminating). */
  markDeleting(object: KubeObject): void;
}

/** Builds a strategy from the generic defaults plus per-kind overrides. */
export function makeStrategy(info: ResourceInfo, overrides: Partial<Strategy> = {}): Strategy {
  const hasStatus = info.subresources.some((s) => s.name === 'status');
  return {
    tracksGeneration: false,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    hasStatus,
    statusKeepsMetadata: [],
    decodeError: () => undefined,
    defaults: () => {},
    prepareForCreate: (object) => {
      if (hasStatus) delete object.status;
    },
    prepareForUpdate: (object, old) => {
      if (hasStatus) {
        if (old.status === undefined) delete object.status;
        else object.status = old.status;
      }
    },
    validateCreate: () => [],
    validateUpdate: () => [],
    gracePeriodSeconds: () => 0,
    selectableFields: () => ({}),
    finalizationPending: () => false,
    markDeleting: () => {},
    ...overrides,
  };
}
