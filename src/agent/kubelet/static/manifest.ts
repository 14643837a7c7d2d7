// A static pod from a manifest file, made into the pod the kubelet runs the way upstream's file
// source does (pkg/kubelet/config/common.go): API defaults applied, a uid that is the hash of the
// defaulted pod and its source, the name suffixed with the node's, the node's own NoExecute taints
// tolerated. The mirror pod is the API's copy of it, linked by the hash annotation.
import { createHash } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { defaultPod } from '../../../api/defaults/pod.js';
import { MIRROR_POD_ANNOTATION } from '../../../api/mirror-pods.js';
import { isJsonObject } from '../../../api/object.js';
import { podQosClass } from '../../../api/pod-qos.js';
import type { Pod, PodSpec, Toleration } from '../../../api/types/core-v1.generated.js';

export const CONFIG_SOURCE_ANNOTATION = 'kubernetes.io/config.source';
export const CONFIG_HASH_ANNOTATION = 'kubernetes.io/config.hash';
export const CONFIG_SEEN_ANNOTATION = 'kubernetes.io/config.seen';
/** The `config.source` of pods read from the manifest directory. */
export const FILE_SOURCE = 'file';
/** The `config.source` of pods from the apiserver. */
export const API_SOURCE = 'api';

/** A manifest that is not one valid pod; the file is skipped (and logged). */
export class ManifestError extends Error {}

/**
 * The static pod a manifest describes (`text` is YAML or JSON). `file` is the manifest's path:
 * it is part of the pod's uid, so the same pod in two files is two pods.
 */
export function staticPodFromManifest(text: string, file: string, nodeName: string): Pod {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new ManifestError(`invalid manifest: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (document === null || document === undefined) throw new ManifestError('file was empty');
  if (!isJsonObject(document)) throw new ManifestError('invalid pod: not an object');
  if (document.kind !== 'Pod' || (document.apiVersion !== 'v1' && document.apiVersion !== undefined)) {
    throw new ManifestError(
      `invalid pod: expected kind "Pod" of apiVersion "v1", got kind ${JSON.stringify(document.kind)} of apiVersion ${JSON.stringify(document.apiVersion)}`,
    );
  }
  const metadata = isJsonObject(document.metadata) ? document.metadata : {};
  if (typeof metadata.name !== 'string' || metadata.name === '') {
    throw new ManifestError('invalid pod: name is needed for the pod');
  }
  document.metadata = metadata;
  // What the apiserver stores it would not keep either: the pod as a source gives it.
  delete document.status;
  defaultPod(document);
  const pod = document as Pod;
  const spec: Partial<PodSpec> = pod.spec ?? {};
  if ((spec.containers ?? []).length === 0) {
    throw new ManifestError('invalid pod: spec.containers: Required value');
  }
  const uid =
    pod.metadata?.uid ||
    createHash('md5')
      .update(JSON.stringify(pod))
      .update(`host:${nodeName}`)
      .update(`file:${file}`)
      .digest('hex');
  const meta = pod.metadata ?? {};
  pod.metadata = {
    ...meta,
    uid,
    name: `${meta.name}-${nodeName.toLowerCase()}`,
    namespace: meta.namespace || 'default',
    annotations: { ...meta.annotations, [CONFIG_HASH_ANNOTATION]: uid },
  };
  pod.spec = {
    ...spec,
    containers: spec.containers ?? [],
    nodeName,
    tolerations: withToleration(spec.tolerations, TOLERATE_NO_EXECUTE),
  };
  // What the apiserver would record: the kubelet's cgroups follow the QoS class.
  pod.status = { phase: 'Pending', qosClass: podQosClass(pod.spec) };
  return pod;
}

/** Static pods stay on their node whatever NoExecute taints it gets. */
const TOLERATE_NO_EXECUTE: Toleration = { operator: 'Exists', effect: 'NoExecute' };

function withToleration(
  tolerations: readonly Toleration[] | undefined,
  toleration: Toleration,
): Toleration[] {
  const list = [...(tolerations ?? [])];
  const same = (t: Toleration) =>
    (t.key ?? '') === (toleration.key ?? '') &&
    (t.operator ?? 'Equal') === toleration.operator &&
    (t.value ?? '') === (toleration.value ?? '') &&
    (t.effect ?? '') === (toleration.effect ?? '');
  if (!list.some(same)) list.push(toleration);
  return list;
}

/** A pod that came from a manifest file (not from the apiserver). */
export function isStaticPod(pod: Pod): boolean {
  const source = pod.metadata?.annotations?.[CONFIG_SOURCE_ANNOTATION];
  return source !== undefined && source !== API_SOURCE;
}

/** The mirror pod belongs to this very static pod (not to an earlier version of its manifest). */
export function isMirrorPodOf(mirror: Pod, staticPod: Pod): boolean {
  const hash = staticPod.metadata?.annotations?.[CONFIG_HASH_ANNOTATION];
  return (
    hash !== undefined &&
    mirror.metadata?.annotations?.[MIRROR_POD_ANNOTATION] === hash &&
    mirror.metadata?.name === staticPod.metadata?.name &&
    mirror.metadata?.namespace === staticPod.metadata?.namespace
  );
}

/** The mirror pod to create for a static pod: owned by the Node, as NodeRestriction demands. */
export function mirrorPodFor(staticPod: Pod, node: { name: string; uid: string }): Pod {
  const { uid: _uid, resourceVersion: _rv, ...meta } = staticPod.metadata ?? {};
  const annotations = { ...meta.annotations };
  annotations[MIRROR_POD_ANNOTATION] = annotations[CONFIG_HASH_ANNOTATION] ?? '';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...meta,
      annotations,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: node.uid, controller: true }],
    },
    spec: staticPod.spec,
  };
}

/** `<namespace>/<name>`: static and mirror pods are matched by it. */
export function podFullName(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}
