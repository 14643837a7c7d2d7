/**
 * The NodeRestriction admission plugin: the Node authorizer lets nodes write nodes, pods, leases
 * and tokens without knowing the objects; this plugin limits those writes to the node's own
 * objects, as Kubernetes 1.33 does. Only requests from node identities are checked.
 */
import { isMirrorPod, MIRROR_POD_ANNOTATION } from '../../../api/mirror-pods.js';
import type { KubeObject } from '../../../api/object.js';
import { goQuote } from '../../../api/selectors/go-text.js';
import type { Pod } from '../../../api/types/core-v1.generated.js';
import { NODE_LEASE_NAMESPACE, nodeNameOf } from '../../auth/node/index.js';
import { podConfigMapNames, podSecretNames } from '../../auth/node/pod-references.js';
import type { ResourceStore } from '../../registry/resource-store.js';
import { semanticEqual } from '../../registry/validation/json.js';
import { forbidden, notFound, type StatusError } from '../../status.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';

/** Where NodeRestriction looks up the pods and nodes a request is about. */
export interface NodeRestrictionLookups {
  readonly pods: Pick<ResourceStore, 'find'>;
  readonly nodes: Pick<ResourceStore, 'find'>;
}

/** Label keys a node may never set on itself, whatever their prefix says. */
const NODE_RESTRICTION_LABEL_NAMESPACE = 'node-restriction.kubernetes.io';

/** kubernetes.io / k8s.io labels kubelets may set on their own Node (k8s.io/kubelet's list). */
const KUBELET_LABELS: ReadonlySet<string> = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

/** PVC status fields a node may change through pods' volume resizing. */
const PVC_NODE_STATUS_FIELDS = ['capacity', 'conditions', 'allocatedResources', 'allocatedResourceStatuses'];

type Check = (node: string, a: AdmissionAttributes) => void | Promise<void>;

export function nodeRestrictionAdmission(lookups: NodeRestrictionLookups): AdmissionPlugin {
  const checks: Record<string, Check> = {
    '/pods': (node, a) => admitPod(node, a, lookups),
    '/nodes': admitNode,
    '/persistentvolumeclaims': admitClaim,
    '/serviceaccounts': (node, a) => admitServiceAccount(node, a, lookups),
    'coordination.k8s.io/leases': admitLease,
    'storage.k8s.io/csinodes': admitCsiNode,
    'resource.k8s.io/resourceslices': admitResourceSlice,
  };
  return {
    name: 'NodeRestriction',
    admit(a) {
      const node = nodeNameOf(a.user);
      if (node === undefined) return;
      if (node === '') {
        throw rejection(a, `could not determine node from user ${goQuote(a.user!.name)}`);
      }
      return checks[`${a.resource.group}/${a.resource.resource}`]?.(node, a);
    },
  };
}

/** admission.NewForbidden: the request's name, else the object's (or its generateName), else "Unknown". */
function rejection(a: AdmissionAttributes, message: string): StatusError {
  const name = a.name || a.object.metadata?.name || a.object.metadata?.generateName || 'Unknown';
  return forbidden({ group: a.resource.group, resource: a.resource.resource }, name, message);
}

/** What a lister answers for a missing object: the singular resource name, as client-go's listers use. */
async function existingPod(lookups: NodeRestrictionLookups, namespace: string, name: string): Promise<Pod> {
  const pod = await lookups.pods.find(namespace, name);
  if (!pod) throw notFound({ group: '', resource: 'pod' }, name);
  return pod as Pod;
}

async function admitPod(
  node: string,
  a: AdmissionAttributes,
  lookups: NodeRestrictionLookups,
): Promise<void> {
  switch (a.subresource) {
    case '':
      if (a.operation === 'CREATE') return admitMirrorPod(node, a, lookups);
      if (a.operation === 'DELETE') {
        const pod = await existingPod(lookups, a.namespace, a.name);
        if (pod.spec?.nodeName !== node) {
          throw rejection(a, `node ${goQuote(node)} can only delete pods with spec.nodeName set to itself`);
        }
        return;
      }
      throw rejection(
        a,
        `unexpected operation ${goQuote(a.operation)}, node ${goQuote(node)} can only create and delete mirror pods`,
      );
    case 'status':
      return admitPodStatus(node, a);
    case 'eviction':
      return admitEviction(node, a, lookups);
    default:
      throw rejection(
        a,
        `unexpected pod subresource ${goQuote(a.subresource)}, only 'status' and 'eviction' are allowed`,
      );
  }
}

async function admitMirrorPod(
  node: string,
  a: AdmissionAttributes,
  lookups: NodeRestrictionLookups,
): Promise<void> {
  const pod = a.object as Pod;
  const quoted = goQuote(node);
  if (!isMirrorPod(pod)) {
    throw rejection(
      a,
      `pod does not have ${goQuote(MIRROR_POD_ANNOTATION)} annotation, node ${quoted} can only create mirror pods`,
    );
  }
  if (pod.spec?.nodeName !== node) {
    throw rejection(a, `node ${quoted} can only create pods with spec.nodeName set to itself`);
  }
  const owners = pod.metadata?.ownerReferences ?? [];
  if (owners.length > 1) {
    throw rejection(a, `node ${quoted} can only create pods with a single owner reference set to itself`);
  }
  const owner = owners[0];
  if (owner?.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) {
    throw rejection(a, `node ${quoted} can only create pods with an owner reference set to itself`);
  }
  if (owner.controller !== true) {
    throw rejection(a, `node ${quoted} can only create pods with a controller owner reference set to itself`);
  }
  if (owner.blockOwnerDeletion === true) {
    throw rejection(a, `node ${quoted} must not set blockOwnerDeletion on an owner reference`);
  }
  const nodeObject = await lookups.nodes.find('', node);
  if (!nodeObject) throw notFound({ group: '', resource: 'node' }, node);
  const nodeUid = nodeObject.metadata?.uid ?? '';
  if (owner.uid !== nodeUid) {
    throw rejection(a, `node ${node} UID mismatch: expected ${owner.uid} got ${nodeUid}`);
  }
  // A mirror pod must not give its node a path to any other object.
  const spec = pod.spec;
  if (spec.serviceAccountName) {
    throw rejection(a, `node ${quoted} can not create pods that reference a service account`);
  }
  if (podSecretNames(spec).length > 0) {
    throw rejection(a, `node ${quoted} can not create pods that reference secrets`);
  }
  if (podConfigMapNames(spec).length > 0) {
    throw rejection(a, `node ${quoted} can not create pods that reference configmaps`);
  }
  const volumes = spec.volumes ?? [];
  if (volumes.some((volume) => volume.projected?.sources?.some((source) => source.clusterTrustBundle))) {
    throw rejection(a, `node ${quoted} can not create pods that reference clustertrustbundles`);
  }
  if (volumes.some((volume) => volume.persistentVolumeClaim)) {
    throw rejection(a, `node ${quoted} can not create pods that reference persistentvolumeclaims`);
  }
}

function admitPodStatus(node: string, a: AdmissionAttributes): void {
  if (a.operation !== 'UPDATE') throw rejection(a, `unexpected operation ${goQuote(a.operation)}`);
  const old = a.oldObject as Pod;
  const updated = a.object as Pod;
  if (old.spec?.nodeName !== node) {
    throw rejection(
      a,
      `node ${goQuote(node)} can only update pod status for pods with spec.nodeName set to itself`,
    );
  }
  if (!semanticEqual(old.metadata?.labels, updated.metadata?.labels)) {
    throw rejection(a, `node ${goQuote(node)} cannot update labels through pod status`);
  }
  if (!sameClaimStatuses(old, updated)) {
    throw rejection(a, `node ${goQuote(node)} cannot update resource claim statues`);
  }
}

/** Names and claim names of the pod's resource claim statuses, in order. */
function sameClaimStatuses(a: Pod, b: Pod): boolean {
  const key = (pod: Pod) =>
    (pod.status?.resourceClaimStatuses ?? []).map((status) => [
      status.name,
      status.resourceClaimName ?? null,
    ]);
  return JSON.stringify(key(a)) === JSON.stringify(key(b));
}

async function admitEviction(
  node: string,
  a: AdmissionAttributes,
  lookups: NodeRestrictionLookups,
): Promise<void> {
  if (a.operation !== 'CREATE') throw rejection(a, `unexpected operation ${a.operation}`);
  // The pod named in the path wins over the one named in the Eviction.
  const podName = a.name || a.object.metadata?.name || '';
  if (podName === '') throw rejection(a, 'could not determine pod from request data');
  const pod = await existingPod(lookups, a.namespace, podName);
  if (pod.spec?.nodeName !== node) {
    throw rejection(a, `node ${node} can only evict pods with spec.nodeName set to itself`);
  }
}

function admitNode(node: string, a: AdmissionAttributes): void {
  if (a.name !== node)
    throw rejection(a, `node ${goQuote(node)} is not allowed to modify node ${goQuote(a.name)}`);
  const spec = (a.object.spec ?? {}) as { configSource?: unknown; taints?: unknown };
  if (a.operation === 'CREATE') {
    // A config source would widen what the node may read.
    if (spec.configSource !== undefined && spec.configSource !== null) {
      throw rejection(a, `node ${goQuote(node)} is not allowed to create pods with a non-nil configSource`);
    }
    const labels = forbiddenLabels(modifiedLabels(a.object.metadata?.labels, undefined));
    if (labels.length > 0) {
      throw rejection(
        a,
        `node ${goQuote(node)} is not allowed to set the following labels: ${labels.join(', ')}`,
      );
    }
  }
  if (a.operation === 'UPDATE') {
    const oldSpec = (a.oldObject?.spec ?? {}) as { configSource?: unknown; taints?: unknown };
    if (
      spec.configSource !== undefined &&
      spec.configSource !== null &&
      !semanticEqual(spec.configSource, oldSpec.configSource)
    ) {
      throw rejection(
        a,
        `node ${goQuote(node)} is not allowed to update configSource to a new non-nil configSource`,
      );
    }
    // Taints keep workloads off a node: it must not lift its own.
    if (!semanticEqual(spec.taints, oldSpec.taints)) {
      throw rejection(a, `node ${goQuote(node)} is not allowed to modify taints`);
    }
    const labels = forbiddenLabels(modifiedLabels(a.object.metadata?.labels, a.oldObject?.metadata?.labels));
    if (labels.length > 0) throw rejection(a, `is not allowed to modify labels: ${labels.join(', ')}`);
  }
}

/** Keys added, removed or changed between two label maps. */
function modifiedLabels(
  a: Record<string, string> | undefined,
  b: Record<string, string> | undefined,
): Set<string> {
  const modified = new Set<string>();
  for (const [key, value] of Object.entries(a ?? {})) if (b?.[key] !== value) modified.add(key);
  for (const [key, value] of Object.entries(b ?? {})) if (a?.[key] !== value) modified.add(key);
  return modified;
}

function labelNamespace(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

function inNamespace(namespace: string, domain: string): boolean {
  return namespace === domain || namespace.endsWith(`.${domain}`);
}

/** Labels a node may not add, remove or change on itself, sorted (Go's sets.String.List). */
export function forbiddenLabels(keys: Iterable<string>): string[] {
  const forbiddenKeys: string[] = [];
  for (const key of keys) {
    const namespace = labelNamespace(key);
    if (inNamespace(namespace, NODE_RESTRICTION_LABEL_NAMESPACE)) forbiddenKeys.push(key);
    else if (isKubernetesLabel(namespace) && !isKubeletLabel(key, namespace)) forbiddenKeys.push(key);
  }
  return forbiddenKeys.sort();
}

function isKubernetesLabel(namespace: string): boolean {
  return inNamespace(namespace, 'kubernetes.io') || inNamespace(namespace, 'k8s.io');
}

function isKubeletLabel(key: string, namespace: string): boolean {
  return (
    KUBELET_LABELS.has(key) || KUBELET_LABEL_NAMESPACES.some((allowed) => inNamespace(namespace, allowed))
  );
}

function admitClaim(node: string, a: AdmissionAttributes): void {
  if (a.subresource !== 'status') throw rejection(a, 'may only update PVC status');
  if (a.operation !== 'UPDATE') throw rejection(a, `unexpected operation ${goQuote(a.operation)}`);
  const changed = changedClaimFields(a.oldObject!, a.object);
  if (changed.length > 0) {
    throw rejection(
      a,
      `node ${goQuote(node)} is not allowed to update fields other than status.quantity and status.conditions: ${changed.join(', ')}`,
    );
  }
}

/** The top-level fields (and status fields) that differ, ignoring what a node may change. */
function changedClaimFields(old: KubeObject, updated: KubeObject): string[] {
  const comparable = (claim: KubeObject) => {
    const copy = structuredClone(claim);
    delete copy.metadata?.resourceVersion;
    delete copy.metadata?.managedFields;
    const status = copy.status as Record<string, unknown> | undefined;
    for (const field of PVC_NODE_STATUS_FIELDS) delete status?.[field];
    return copy;
  };
  const a = comparable(old);
  const b = comparable(updated);
  const changed: string[] = [];
  for (const field of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (field === 'status') {
      const statusA = (a.status ?? {}) as Record<string, unknown>;
      const statusB = (b.status ?? {}) as Record<string, unknown>;
      for (const key of new Set([...Object.keys(statusA), ...Object.keys(statusB)])) {
        if (!semanticEqual(statusA[key], statusB[key])) changed.push(`status.${key}`);
      }
    } else if (!semanticEqual(a[field], b[field])) changed.push(field);
  }
  return changed.sort();
}

interface TokenRequestSpec {
  boundObjectRef?: { apiVersion?: string; kind?: string; name?: string; uid?: string };
}

async function admitServiceAccount(
  node: string,
  a: AdmissionAttributes,
  lookups: NodeRestrictionLookups,
): Promise<void> {
  if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
  // A node's tokens must be bound to a pod running on it.
  const ref = (a.object.spec as TokenRequestSpec | undefined)?.boundObjectRef;
  if (ref?.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name) {
    throw rejection(a, 'node requested token not bound to a pod');
  }
  if (!ref.uid) throw rejection(a, 'node requested token with a pod binding without a uid');
  const pod = await existingPod(lookups, a.namespace, ref.name);
  if (ref.uid !== pod.metadata?.uid) {
    throw rejection(
      a,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  if (pod.spec?.nodeName !== node) {
    throw rejection(a, 'node requested token bound to a pod scheduled on a different node');
  }
}

function admitLease(node: string, a: AdmissionAttributes): void {
  if (a.namespace !== NODE_LEASE_NAMESPACE) {
    throw rejection(a, `can only access leases in the ${goQuote(NODE_LEASE_NAMESPACE)} system namespace`);
  }
  const name = a.operation === 'CREATE' ? (a.object.metadata?.name ?? '') : a.name;
  if (name !== node)
    throw rejection(a, 'can only access node lease with the same name as the requesting node');
}

function admitCsiNode(node: string, a: AdmissionAttributes): void {
  const name = a.operation === 'CREATE' ? (a.object.metadata?.name ?? '') : a.name;
  if (name !== node) throw rejection(a, 'can only access CSINode with the same name as the requesting node');
}

function admitResourceSlice(node: string, a: AdmissionAttributes): void {
  const sliceNode = (object: KubeObject | undefined) =>
    (object?.spec as { nodeName?: string } | undefined)?.nodeName;
  if (a.operation === 'CREATE' && sliceNode(a.object) !== node) {
    throw rejection(a, 'can only create ResourceSlice with the same NodeName as the requesting node');
  }
  if (a.operation === 'DELETE' && sliceNode(a.oldObject) !== node) {
    throw rejection(a, 'can only delete ResourceSlice with the same NodeName as the requesting node');
  }
}
