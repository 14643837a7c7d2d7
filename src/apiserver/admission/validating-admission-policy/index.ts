// ValidatingAdmissionPolicy wired for the apiserver: the policy and binding cache, the caches of
// param resources (made on first use for each paramKind, custom resources included), and the
// admission plugin reading them.
import type { ResourceInfo } from '../../../api/resources/types.js';
import type {
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyStatus,
} from '../../../api/types/admissionregistration-v1.generated.js';
import type { Store } from '../../../storage/index.js';
import type { AuthorizeFunction } from '../../cel/library/authz.js';
import type { AdmissionPlugin } from '../chain.js';
import { ObjectCache, type ObjectLister } from '../object-cache.js';
import { builtinKindSchema } from './openapi-schema.js';
import type { ParamSource } from './params.js';
import { validatingAdmissionPolicyAdmission } from './plugin.js';
import { PolicyCache } from './policy-cache.js';
import { type TypeCheckSources, typeCheckPolicy } from './type-checking.js';

export { compilePolicy } from './compile.js';
export { PolicyCache } from './policy-cache.js';

/** A served resource and the key prefix its objects are stored under. */
export interface ServedResource {
  readonly info: ResourceInfo;
  readonly root: string;
}

export interface ValidatingAdmissionPolicyDeps {
  readonly store: Store;
  /** Key prefixes of the policies and of the bindings. */
  readonly policyRoot: string;
  readonly bindingRoot: string;
  /** Every served resource (read at request time, so resources added later are found). */
  readonly resources: () => Iterable<ServedResource>;
  readonly namespaces: ObjectLister;
  readonly authorize?: AuthorizeFunction;
  /**
   * Writes a policy's status (observedGeneration and type checking) through the status
   * subresource, unless the policy has moved past `generation` meanwhile.
   */
  readonly writeStatus?: (
    name: string,
    generation: number,
    status: ValidatingAdmissionPolicyStatus,
  ) => Promise<void>;
  /** The schema of a kind that is not built in (custom resources), for type checking. */
  readonly schemaFor?: TypeCheckSources['schemaFor'];
}

/** The plugin and what the apiserver starts and stops with its other admission caches. */
export interface ValidatingAdmissionPolicyWiring {
  readonly plugin: AdmissionPlugin;
  start(): Promise<void>;
  stop(): void;
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export function validatingAdmissionPolicy(
  deps: ValidatingAdmissionPolicyDeps,
): ValidatingAdmissionPolicyWiring {
  const typeCheckSources: TypeCheckSources = {
    kindsFor: (group, version, resource) => {
      const kinds: string[] = [];
      for (const { info } of deps.resources())
        if (info.group === group && info.version === version && info.resource === resource)
          kinds.push(info.kind);
      return kinds;
    },
    schemaFor: (gvk) => builtinKindSchema(gvk.group, gvk.version, gvk.kind) ?? deps.schemaFor?.(gvk),
  };
  // The status controller's queue: one pending write per policy, made after the current turn.
  const pending = new Set<string>();
  const onStale = (policy: ValidatingAdmissionPolicy): void => {
    const name = policy.metadata?.name ?? '';
    if (deps.writeStatus === undefined || pending.has(name)) return;
    pending.add(name);
    setImmediate(() => {
      pending.delete(name);
      const generation = Number(policy.metadata?.generation ?? 0);
      let expressionWarnings: ReturnType<typeof typeCheckPolicy> = [];
      try {
        expressionWarnings = typeCheckPolicy(policy, typeCheckSources);
      } catch {
        // A schema the checker cannot read leaves the policy without warnings, as upstream logs and goes on.
      }
      const typeChecking = expressionWarnings.length > 0 ? { expressionWarnings } : {};
      deps.writeStatus!(name, generation, {
        ...policy.status,
        observedGeneration: generation,
        typeChecking,
      }).catch(() => {
        // The policy was deleted or changed meanwhile: its next write queues it again.
      });
    });
  };
  const policies = new PolicyCache(deps.store, deps.policyRoot, deps.bindingRoot, onStale);
  const paramCaches = new Map<string, ObjectCache>();
  const params: ParamSource = (paramKind) => {
    const { group, version } = splitApiVersion(paramKind.apiVersion ?? '');
    for (const served of deps.resources()) {
      const { info } = served;
      if (info.group !== group || info.version !== version || info.kind !== paramKind.kind) continue;
      let cache = paramCaches.get(served.root);
      if (cache === undefined) {
        cache = new ObjectCache(deps.store, served.root);
        paramCaches.set(served.root, cache);
        // Until its first list completes the cache reads the store directly.
        void cache.start();
      }
      return { namespaced: info.namespaced, lister: cache };
    }
    return undefined;
  };
  const equivalentVersions = (group: string, resource: string): string[] => {
    const versions: string[] = [];
    for (const { info } of deps.resources())
      if (info.group === group && info.resource === resource) versions.push(info.version);
    return versions;
  };
  return {
    plugin: validatingAdmissionPolicyAdmission({
      policies,
      namespaces: deps.namespaces,
      params,
      equivalentVersions,
      ...(deps.authorize ? { authorize: deps.authorize } : {}),
    }),
    start: () => policies.start(),
    stop: () => {
      policies.stop();
      for (const cache of paramCaches.values()) cache.stop();
    },
  };
}
