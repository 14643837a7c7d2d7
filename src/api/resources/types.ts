// The shape of the facts table that discovery and the generic registry are driven by.

/** The verbs discovery can list for a resource or subresource. */
export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

/** A subresource as discovery shows it (`pods/log`, `deployments/scale`, ...). */
export interface SubresourceInfo {
  /** The part after the slash: `status`, `scale`, `eviction`, ... */
  readonly name: string;
  /** The kind the subresource accepts and returns (`Scale`, `PodExecOptions`, or the parent's kind). */
  readonly kind: string;
  /** Alphabetical, as kube-apiserver lists them. */
  readonly verbs: readonly Verb[];
  /** Set only when the kind lives in another group-version (e.g. `autoscaling` for `Scale`). */
  readonly group?: string;
  readonly version?: string;
}

/** One resource of one served group-version. */
export interface ResourceInfo {
  /** `''` for the core group. */
  readonly group: string;
  readonly version: string;
  /** The plural name used in URLs. */
  readonly resource: string;
  readonly singularName: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** Alphabetical, as kube-apiserver lists them. */
  readonly verbs: readonly Verb[];
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** Sorted by name, as discovery lists them. */
  readonly subresources: readonly SubresourceInfo[];
  /**
   * What legacy discovery reports: the first 8 bytes of SHA-256 over `group/version/kind` of the
   * storage version, base64. Absent for resources that are not persisted (reviews, bindings).
   */
  readonly storageVersionHash?: string;
}

/** The priorities kube-apiserver gives the APIService of one group-version. */
export interface APIServicePriority {
  /** `spec.groupPriorityMinimum`: higher comes first in `/apis`. */
  readonly group: number;
  /** `spec.versionPriority`: higher comes first within the group. */
  readonly version: number;
}

/** One API group as `/api` or `/apis` lists it. */
export interface GroupInfo {
  /** `''` for the core group. */
  readonly name: string;
  /** Served versions, preferred first. */
  readonly versions: readonly string[];
  /**
   * Per version. Absent for apiregistration.k8s.io: the aggregator serves that group itself,
   * registers no APIService for it and always lists it first.
   */
  readonly priorities?: Readonly<Record<string, APIServicePriority>>;
}
