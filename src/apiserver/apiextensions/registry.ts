// The custom resources being served, as apiextensions-apiserver's crdHandler keeps them: one
// ResourceStore per served version of each CRD whose names are accepted, registered with the
// API server's resource table, and the discovery table (built-ins plus these) rebuilt on change.
import type { KubeObject } from '../../api/object.js';
import type { GroupInfo, ResourceInfo } from '../../api/resources/types.js';
import type { JSONSchemaProps } from '../../api/types/apiextensions-v1.generated.js';
import type { Store } from '../../storage/index.js';
import type { WebhookClientDeps } from '../admission/webhook/client.js';
import { compareKubeAwareVersions } from '../discovery/group-order.js';
import { BUILTIN_TABLE, type ResourceTable } from '../discovery/table.js';
import type { SchemaSource } from '../openapi/schema-source.js';
import { type NamespaceCheck, ResourceStore } from '../registry/resource-store.js';
import { ConversionWebhookMetrics } from './conversion-metrics.js';
import { conditionTrue, crdSpec } from './crd-object.js';
import { servedVersion } from './custom-resource.js';
import { customResourceSchemas } from './openapi.js';

/** The APIService priorities apiextensions-apiserver's CRD registration gives every CRD group-version. */
const CRD_GROUP_PRIORITY = 1000;
const CRD_VERSION_PRIORITY = 100;

export interface ResourceRegistrar {
  register(info: ResourceInfo, store: ResourceStore): void;
  unregister(info: ResourceInfo): void;
  /** Called with each new store (the API server gives it its admission chain). */
  prepare(store: ResourceStore): void;
}

interface ServedCrd {
  /** The stored text the stores were built from: an unchanged CRD keeps them. */
  readonly text: string;
  readonly stores: ResourceStore[];
  readonly schemas: { readonly info: ResourceInfo; readonly schema: JSONSchemaProps | undefined }[];
  terminating: boolean;
}

export class CustomResourceRegistry {
  private readonly served = new Map<string, ServedCrd>();
  private cachedTable?: ResourceTable;
  private cachedSchemas?: SchemaSource;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly store: Store,
    private readonly checkNamespace: NamespaceCheck,
    private readonly registrar: ResourceRegistrar,
    /** How conversion webhooks are reached (Services through the apiserver's resolver). */
    private readonly webhookClient: WebhookClientDeps = {},
    /** What conversion webhook calls cost and how they end (rendered at /metrics). */
    readonly conversionMetrics = new ConversionWebhookMetrics(),
  ) {}

  /** Serves what `crd` defines now (nothing once it is gone or its names are not accepted). */
  update(name: string, crd: KubeObject | undefined): void {
    const text = crd === undefined ? '' : JSON.stringify({ spec: crd.spec, status: crd.status });
    const current = this.served.get(name);
    if (current && current.text === text) return;
    const servable =
      crd !== undefined && (conditionTrue(crd, 'NamesAccepted') || conditionTrue(crd, 'Established'));
    if (current) for (const store of current.stores) this.registrar.unregister(store.info);
    this.served.delete(name);
    if (servable) {
      const entry: ServedCrd = {
        text,
        stores: [],
        schemas: [],
        terminating: conditionTrue(crd, 'Terminating'),
      };
      for (const version of crdSpec(crd).versions) {
        if (!version.served) continue;
        const { info, strategy, codec, serving } = servedVersion(
          crd,
          version,
          this.webhookClient,
          this.conversionMetrics,
        );
        const resourceStore = new ResourceStore(info, strategy, this.store, this.checkNamespace, codec);
        resourceStore.custom = { ...serving, terminating: () => entry.terminating };
        this.registrar.prepare(resourceStore);
        this.registrar.register(info, resourceStore);
        entry.stores.push(resourceStore);
        entry.schemas.push({ info, schema: version.schema });
      }
      this.served.set(name, entry);
    }
    this.cachedTable = undefined;
    this.cachedSchemas = undefined;
    for (const listener of this.listeners) listener();
  }

  /** A store over every stored instance of `crd` at its storage version, served or not. */
  storageStore(crd: KubeObject): ResourceStore | undefined {
    const version = crdSpec(crd).versions.find((candidate) => candidate.storage);
    if (!version) return undefined;
    const { info, strategy, codec } = servedVersion(crd, version, this.webhookClient, this.conversionMetrics);
    return new ResourceStore(info, strategy, this.store, this.checkNamespace, codec);
  }

  /** The schema of a served custom kind (ValidatingAdmissionPolicy type checking reads it). */
  schemaOf(group: string, version: string, kind: string): JSONSchemaProps | undefined {
    for (const entry of this.served.values()) {
      for (const { info, schema } of entry.schemas) {
        if (info.group === group && info.version === version && info.kind === kind) return schema;
      }
    }
    return undefined;
  }

  /** Runs `listener` after every change of what is served (discovery and OpenAPI caches). */
  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  /** Built-ins plus the custom resources, for discovery. */
  table(): ResourceTable {
    this.cachedTable ??= this.buildTable();
    return this.cachedTable;
  }

  /** The OpenAPI definitions of built-ins and custom resources, for the OpenAPI documents. */
  schemas(): SchemaSource {
    this.cachedSchemas ??= customResourceSchemas([...this.served.values()].flatMap((entry) => entry.schemas));
    return this.cachedSchemas;
  }

  private buildTable(): ResourceTable {
    if (this.served.size === 0) return BUILTIN_TABLE;
    const resources: ResourceInfo[] = [];
    const versionsByGroup = new Map<string, Set<string>>();
    for (const entry of this.served.values()) {
      for (const store of entry.stores) {
        resources.push(store.info);
        const versions = versionsByGroup.get(store.info.group) ?? new Set<string>();
        versions.add(store.info.version);
        versionsByGroup.set(store.info.group, versions);
      }
    }
    const builtinGroups = new Set(BUILTIN_TABLE.groups.map((group) => group.name));
    const groups: GroupInfo[] = [...BUILTIN_TABLE.groups];
    for (const [group, versionSet] of versionsByGroup) {
      if (builtinGroups.has(group)) continue;
      const versions = [...versionSet].sort(compareKubeAwareVersions);
      const priorities = Object.fromEntries(
        versions.map((version) => [version, { group: CRD_GROUP_PRIORITY, version: CRD_VERSION_PRIORITY }]),
      );
      groups.push({ name: group, versions, priorities });
    }
    return {
      groups,
      resources: [...BUILTIN_TABLE.resources, ...resources],
      customResourceGroups: new Set(versionsByGroup.keys()),
    };
  }
}
