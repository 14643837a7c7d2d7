// The files of configMap, secret, downwardAPI and projected volumes: what each source writes,
// with the kubelet's rules for items, modes, optional sources and its error texts.

import { aggregateMessages } from '../../../api/selectors/field-errors.js';
import type {
  ConfigMap,
  DownwardAPIVolumeFile,
  KeyToPath,
  Pod,
  ProjectedVolumeSource,
  Secret,
} from '../../../api/types/core-v1.generated.js';
import type { ApiObjects } from './api-objects.js';
import type { FileProjection, Payload } from './atomic-writer.js';
import { containerResourceValue, podFieldValue } from './downward-api.js';
import { errorText } from './errors.js';
import type { ServiceAccountTokenManager } from './service-account-tokens.js';

/** The API's default for defaultMode (0644). */
export const DEFAULT_FILE_MODE = 0o644;

type KeyedData = ReadonlyMap<string, Buffer>;

function keyedPayload(
  data: KeyedData,
  items: readonly KeyToPath[] | undefined,
  defaultMode: number,
  optional: boolean,
  missingKey: (key: string) => string,
): Map<string, FileProjection> {
  const payload = new Map<string, FileProjection>();
  if (!items || items.length === 0) {
    for (const [key, value] of data) payload.set(key, { data: value, mode: defaultMode });
    return payload;
  }
  for (const item of items) {
    const value = data.get(item.key);
    if (value === undefined) {
      if (optional) continue;
      throw new Error(missingKey(item.key));
    }
    payload.set(item.path, { data: value, mode: item.mode ?? defaultMode });
  }
  return payload;
}

export function configMapPayload(
  configMap: ConfigMap | undefined,
  items: readonly KeyToPath[] | undefined,
  defaultMode: number,
  optional: boolean,
): Map<string, FileProjection> {
  const data = new Map<string, Buffer>();
  for (const [key, value] of Object.entries(configMap?.data ?? {})) data.set(key, Buffer.from(value, 'utf8'));
  for (const [key, value] of Object.entries(configMap?.binaryData ?? {}))
    data.set(key, Buffer.from(value, 'base64'));
  return keyedPayload(
    data,
    items,
    defaultMode,
    optional,
    (key) => `configmap references non-existent config key: ${key}`,
  );
}

export function secretPayload(
  secret: Secret | undefined,
  items: readonly KeyToPath[] | undefined,
  defaultMode: number,
  optional: boolean,
): Map<string, FileProjection> {
  const data = new Map<string, Buffer>();
  for (const [key, value] of Object.entries(secret?.data ?? {})) data.set(key, Buffer.from(value, 'base64'));
  return keyedPayload(
    data,
    items,
    defaultMode,
    optional,
    (key) => `references non-existent secret key: ${key}`,
  );
}

/** Go's filepath.Clean of a relative path. */
function cleanRelative(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
    else parts.push(part);
  }
  return parts.join('/') || '.';
}

/** The files of a downwardAPI volume or projection; errors of all items in one message. */
export async function downwardApiPayload(
  items: readonly DownwardAPIVolumeFile[] | undefined,
  pod: Pod,
  defaultMode: number,
  objects: ApiObjects,
): Promise<Map<string, FileProjection>> {
  const payload = new Map<string, FileProjection>();
  const errors: string[] = [];
  for (const item of items ?? []) {
    let data = Buffer.alloc(0);
    try {
      if (item.fieldRef) data = Buffer.from(podFieldValue(pod, item.fieldRef.fieldPath), 'utf8');
      else if (item.resourceFieldRef) {
        const selector = item.resourceFieldRef;
        const allocatable = await objects.nodeAllocatable();
        data = Buffer.from(
          containerResourceValue(selector, pod, selector.containerName ?? '', allocatable),
          'utf8',
        );
      }
    } catch (error) {
      errors.push(errorText(error));
    }
    payload.set(cleanRelative(item.path), { data, mode: item.mode ?? defaultMode });
  }
  if (errors.length > 0) throw new Error(aggregateMessages(errors));
  return payload;
}

/** A configMap or secret source as volumes and projections name it. */
export interface KeyedSource {
  readonly kind: 'configmap' | 'secret';
  readonly name: string;
  readonly items?: readonly KeyToPath[];
  readonly optional?: boolean;
}

/** The files of a configMap or secret: a missing object is an error unless optional. */
export async function keyedSourcePayload(
  objects: ApiObjects,
  namespace: string,
  source: KeyedSource,
  defaultMode: number,
): Promise<Map<string, FileProjection>> {
  const optional = source.optional === true;
  if (source.kind === 'configmap') {
    const configMap = await objects.configMap(namespace, source.name);
    if (!configMap && !optional) throw new Error(`configmap "${source.name}" not found`);
    return configMapPayload(configMap, source.items, defaultMode, optional);
  }
  const secret = await objects.secret(namespace, source.name);
  if (!secret && !optional) throw new Error(`secret "${source.name}" not found`);
  return secretPayload(secret, source.items, defaultMode, optional);
}

export interface ProjectionContext {
  readonly objects: ApiObjects;
  readonly tokens: ServiceAccountTokenManager;
  /** The user every container runs as, if they agree (token files are then theirs). */
  readonly fsUser?: number;
  readonly fsGroup?: number;
}

/** The merged files of a projected volume's sources; every source's error in one message. */
export async function projectedPayload(
  source: ProjectedVolumeSource,
  pod: Pod,
  context: ProjectionContext,
): Promise<Payload> {
  const defaultMode = source.defaultMode ?? DEFAULT_FILE_MODE;
  const namespace = pod.metadata?.namespace ?? '';
  const payload = new Map<string, FileProjection>();
  const errors: string[] = [];
  const merge = (files: Map<string, FileProjection>) => {
    for (const [path, file] of files) payload.set(path, file);
  };
  for (const projection of source.sources ?? []) {
    try {
      if (projection.configMap || projection.secret) {
        const ref = (projection.configMap ?? projection.secret)!;
        const kind = projection.configMap ? 'configmap' : 'secret';
        merge(
          await keyedSourcePayload(
            context.objects,
            namespace,
            { ...ref, kind, name: ref.name ?? '' },
            defaultMode,
          ),
        );
      } else if (projection.downwardAPI) {
        merge(await downwardApiPayload(projection.downwardAPI.items, pod, defaultMode, context.objects));
      } else if (projection.serviceAccountToken) {
        const token = await context.tokens.token(pod, projection.serviceAccountToken);
        // With an owner to give it to, the token is 0600 (fsGroup ownership opens it to the group).
        const owned = context.fsUser !== undefined || context.fsGroup !== undefined;
        payload.set(projection.serviceAccountToken.path, {
          data: Buffer.from(token, 'utf8'),
          mode: owned ? 0o600 : defaultMode,
          ...(context.fsUser === undefined ? {} : { fsUser: context.fsUser }),
        });
      }
      // clusterTrustBundle projections need a feature gate that is off in 1.33: nothing to write.
    } catch (error) {
      errors.push(errorText(error));
    }
  }
  if (errors.length > 0) throw new Error(aggregateMessages(errors));
  return payload;
}
