// A container's environment as the kubelet computes it (makeEnvironmentVariables): envFrom
// first, then env in order (values expanded with `$(VAR)` against what is defined so far and the
// service variables; valueFrom resolved from the downward API, configMaps and secrets), then the
// service variables the pod did not set itself. A missing non-optional source is an error whose
// message the container status shows under CreateContainerConfigError.
import type { ConfigMap, Container, Pod, Secret } from '../../../api/types/core-v1.generated.js';
import type { KeyValue } from '../cri/types.js';
import { containerResourceValue, podFieldValue, type ResourceList } from '../volumes/downward-api.js';
import { envMapping, expandReferences } from '../volumes/expansion.js';

/** The API objects an environment reads: undefined for an object that does not exist. */
export interface EnvObjects {
  configMap(namespace: string, name: string): Promise<ConfigMap | undefined>;
  secret(namespace: string, name: string): Promise<Secret | undefined>;
  nodeAllocatable(): Promise<ResourceList>;
}

export interface PodAddresses {
  readonly podIPs: readonly string[];
  readonly hostIPs: readonly string[];
}

export class EnvironmentError extends Error {
  override readonly name = 'EnvironmentError';
}

function decode(base64: string): string {
  return Buffer.from(base64, 'base64').toString('utf8');
}

function fieldValue(pod: Pod, fieldPath: string, addresses: PodAddresses): string {
  switch (fieldPath) {
    case 'status.podIP':
      return addresses.podIPs[0] ?? '';
    case 'status.podIPs':
      return addresses.podIPs.join(',');
    case 'status.hostIP':
      return addresses.hostIPs[0] ?? '';
    case 'status.hostIPs':
      return addresses.hostIPs.join(',');
    default:
      return podFieldValue(pod, fieldPath, true);
  }
}

type SourceKind = 'ConfigMap' | 'Secret';

/** The data of the configMaps and secrets a container reads (secrets decoded), each fetched once. */
class SourceData {
  private readonly cache = new Map<string, Promise<Record<string, string> | undefined>>();

  constructor(
    private readonly objects: EnvObjects,
    private readonly namespace: string,
  ) {}

  /** The object's data, or an error naming it as the kubelet does when it is missing and required. */
  async data(
    kind: SourceKind,
    name: string,
    optional: boolean | undefined,
  ): Promise<Record<string, string> | undefined> {
    const key = `${kind}/${name}`;
    let found = this.cache.get(key);
    if (!found) {
      found =
        kind === 'ConfigMap'
          ? this.objects.configMap(this.namespace, name).then((object) => object && (object.data ?? {}))
          : this.objects
              .secret(this.namespace, name)
              .then((object) => object && decodeAll(object.data ?? {}));
      this.cache.set(key, found);
    }
    const data = await found;
    if (data === undefined && !optional)
      throw new EnvironmentError(`${kind.toLowerCase()} "${name}" not found`);
    return data;
  }

  /** One key's value; undefined to skip an optional one that is missing. */
  async value(
    kind: SourceKind,
    ref: { name?: string; key: string; optional?: boolean },
  ): Promise<string | undefined> {
    const name = ref.name ?? '';
    const data = await this.data(kind, name, ref.optional);
    const value = data?.[ref.key];
    if (value === undefined && data !== undefined && !ref.optional) {
      throw new EnvironmentError(`couldn't find key ${ref.key} in ${kind} ${this.namespace}/${name}`);
    }
    return value;
  }
}

function decodeAll(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, decode(value)]));
}

function asConfigError(error: unknown): EnvironmentError {
  return new EnvironmentError(error instanceof Error ? error.message : String(error));
}

export async function makeEnvironmentVariables(
  pod: Pod,
  container: Container,
  addresses: PodAddresses,
  objects: EnvObjects,
  serviceEnv: ReadonlyMap<string, string>,
): Promise<KeyValue[]> {
  const sources = new SourceData(objects, pod.metadata?.namespace ?? '');
  const env = new Map<string, string>();

  for (const source of container.envFrom ?? []) {
    const ref = source.configMapRef ?? source.secretRef;
    if (!ref) continue;
    const data = await sources.data(
      source.configMapRef ? 'ConfigMap' : 'Secret',
      ref.name ?? '',
      ref.optional,
    );
    for (const [key, value] of Object.entries(data ?? {})) env.set((source.prefix ?? '') + key, value);
  }

  const mapping = envMapping(env, serviceEnv);
  for (const variable of container.env ?? []) {
    let value: string | undefined = variable.value ?? '';
    const from = variable.valueFrom;
    if (value !== '') {
      value = expandReferences(value, mapping);
    } else if (from?.fieldRef) {
      try {
        value = fieldValue(pod, from.fieldRef.fieldPath, addresses);
      } catch (error) {
        throw asConfigError(error);
      }
    } else if (from?.resourceFieldRef) {
      const containerName = from.resourceFieldRef.containerName || container.name;
      try {
        value = containerResourceValue(
          from.resourceFieldRef,
          pod,
          containerName,
          await objects.nodeAllocatable(),
        );
      } catch (error) {
        throw asConfigError(error);
      }
    } else if (from?.configMapKeyRef) {
      value = await sources.value('ConfigMap', from.configMapKeyRef);
    } else if (from?.secretKeyRef) {
      value = await sources.value('Secret', from.secretKeyRef);
    }
    if (value !== undefined) env.set(variable.name, value);
  }

  const result: KeyValue[] = [...env].map(([key, value]) => ({ key, value }));
  for (const [key, value] of serviceEnv) if (!env.has(key)) result.push({ key, value });
  return result;
}

/** Command and args with `$(VAR)` references to the container's environment expanded. */
export function expandCommandAndArgs(
  container: Container,
  env: readonly KeyValue[],
): { command: string[]; args: string[] } {
  const mapping = envMapping(new Map(env.map((entry) => [entry.key, entry.value])));
  return {
    command: (container.command ?? []).map((part) => expandReferences(part, mapping)),
    args: (container.args ?? []).map((part) => expandReferences(part, mapping)),
  };
}
