/**
 * Kubernetes' Node authorizer (`--authorization-mode=Node`): requests from node identities get
 * what a kubelet needs and no more. Reads of secrets, configmaps, PVCs, PVs, resource claims and
 * volume attachments, and service-account tokens, are allowed only for objects related to a pod
 * bound to the node (the NodeGraph); a node reads only its own Node and lease and lists only its
 * own pods; everything else is checked against the static system:node rules. It never denies:
 * what it does not allow is left to the next authorizer, with the reason for the 403 text.
 */
import { goQuote } from '../../../api/selectors/go-text.js';
import type { Attributes } from '../rbac/attributes.js';
import {
  type AuthorizationResult,
  type Authorizer,
  PrivilegedGroupsAuthorizer,
  RbacAuthorizer,
  UnionAuthorizer,
} from '../rbac/authorizer.js';
import { nodeRules } from '../rbac/bootstrap-policy.js';
import type { PolicySource } from '../rbac/rule-resolver.js';
import { rulesAllow } from '../rbac/rules.js';
import type { PolicyRule } from '../rbac/types.js';
import type { NodeGraph, VertexType } from './graph.js';
import { nodeNameOf } from './identity.js';

/** The namespace node heartbeats (leases) live in. */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

export interface NodeAuthorizerOptions {
  /** What the node may do beyond the subdivided resources; defaults to the system:node role's rules. */
  readonly rules?: readonly PolicyRule[];
  /**
   * KubeletServiceAccountTokenForCredentialProviders (alpha, off in 1.33): lets a node get the
   * service accounts of its pods.
   */
  readonly serviceAccountGet?: boolean;
}

const ALLOW: AuthorizationResult = { decision: 'allow', reason: '' };

function noOpinion(reason = ''): AuthorizationResult {
  return { decision: 'noOpinion', reason };
}

function noRelationship(node: string): AuthorizationResult {
  return noOpinion(`no relationship found between node '${node}' and this object`);
}

export class NodeAuthorizer implements Authorizer {
  private readonly rules: readonly PolicyRule[];
  private readonly serviceAccountGet: boolean;

  constructor(
    private readonly graph: NodeGraph,
    options: NodeAuthorizerOptions = {},
  ) {
    this.rules = options.rules ?? nodeRules();
    this.serviceAccountGet = options.serviceAccountGet ?? false;
  }

  authorize(attributes: Attributes): AuthorizationResult {
    const node = nodeNameOf(attributes.user);
    if (node === undefined) return noOpinion();
    if (node === '') return noOpinion(`unknown node for user ${goQuote(attributes.user.name)}`);
    if (attributes.isResourceRequest) {
      const decided = this.authorizeResource(node, attributes);
      if (decided) return decided;
    }
    // Resources that are not subdivided: the static rules, the same for every node.
    return rulesAllow(attributes, this.rules) ? ALLOW : noOpinion();
  }

  private authorizeResource(node: string, a: Attributes): AuthorizationResult | undefined {
    switch (`${a.apiGroup}/${a.resource}`) {
      case '/secrets':
        return this.readNamespaced(node, 'secret', a);
      case '/configmaps':
        return this.readNamespaced(node, 'configmap', a);
      case '/persistentvolumeclaims':
        return a.subresource === 'status' ? this.statusUpdate(node, 'pvc', a) : this.get(node, 'pvc', a);
      case '/persistentvolumes':
        return this.get(node, 'pv', a);
      case 'resource.k8s.io/resourceclaims':
        return this.get(node, 'resourceclaim', a);
      case 'storage.k8s.io/volumeattachments':
        return this.get(node, 'volumeattachment', a);
      case '/serviceaccounts':
        return this.serviceAccount(node, a);
      case 'coordination.k8s.io/leases':
        return lease(node, a);
      case 'storage.k8s.io/csinodes':
        return csiNode(node, a);
      case 'resource.k8s.io/resourceslices':
        return this.resourceSlice(node, a);
      case '/nodes':
        return nodeObject(node, a);
      case '/pods':
        return this.pod(node, a);
      default:
        return undefined;
    }
  }

  /** get/list/watch of one named, namespaced object related to the node. */
  private readNamespaced(node: string, type: VertexType, a: Attributes): AuthorizationResult {
    if (a.verb !== 'get' && a.verb !== 'list' && a.verb !== 'watch') {
      return noOpinion('can only read resources of this type');
    }
    if (a.subresource !== '') return noOpinion('cannot read subresource');
    if (a.namespace === '') return noOpinion('can only read namespaced object of this type');
    return this.related(node, type, a);
  }

  private get(node: string, type: VertexType, a: Attributes): AuthorizationResult {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (a.subresource !== '') return noOpinion('cannot get subresource');
    return this.related(node, type, a);
  }

  private statusUpdate(node: string, type: VertexType, a: Attributes): AuthorizationResult {
    if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    if (a.subresource !== 'status') return noOpinion('can only update status subresource');
    return this.related(node, type, a);
  }

  private related(node: string, type: VertexType, a: Attributes): AuthorizationResult {
    if (a.name === '') return noOpinion('No Object name found');
    return this.graph.reaches(node, type, a.namespace, a.name) ? ALLOW : noRelationship(node);
  }

  private serviceAccount(node: string, a: Attributes): AuthorizationResult {
    if (a.verb === 'get' && a.subresource === '') {
      if (!this.serviceAccountGet) return noOpinion('not allowed to get service accounts');
      return this.readNamespaced(node, 'serviceaccount', a);
    }
    if (a.verb !== 'create' || a.name === '') {
      return noOpinion('can only create tokens for individual service accounts');
    }
    if (a.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.graph.reaches(node, 'serviceaccount', a.namespace, a.name) ? ALLOW : noRelationship(node);
  }

  private resourceSlice(node: string, a: Attributes): AuthorizationResult {
    if (a.subresource !== '') return noOpinion('cannot authorize ResourceSlice subresources');
    switch (a.verb) {
      case 'create':
        // The object is not known yet: NodeRestriction checks its node name.
        return ALLOW;
      case 'get':
      case 'update':
      case 'patch':
      case 'delete':
        return this.related(node, 'resourceslice', a);
      case 'list':
      case 'watch':
      case 'deletecollection':
        return selects(a, 'spec.nodeName', node)
          ? ALLOW
          : noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector');
      default:
        return noOpinion(
          'only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection',
        );
    }
  }

  private pod(node: string, a: Attributes): AuthorizationResult {
    switch (a.subresource) {
      case '':
        switch (a.verb) {
          case 'get':
            return this.get(node, 'pod', a);
          case 'list':
          case 'watch':
            if (selects(a, 'spec.nodeName', node)) return ALLOW;
            // One pod pinned by metadata.name: allowed when it is bound to the node.
            if (a.name !== '') return this.related(node, 'pod', a);
            return noOpinion('can only list/watch pods with spec.nodeName field selector');
          case 'create':
          case 'delete':
            // Mirror pods; NodeRestriction limits them to pods bound to the node.
            return ALLOW;
        }
        break;
      case 'status':
        if (a.verb === 'update' || a.verb === 'patch') return ALLOW;
        break;
      case 'eviction':
        if (a.verb === 'create') return ALLOW;
        break;
    }
    return noOpinion();
  }
}

/** Whether the request's field selector pins `field` to `value`. */
function selects(a: Attributes, field: string, value: string): boolean {
  return (a.fieldSelector ?? []).some(
    (term) => term.field === field && term.operator === '=' && term.value === value,
  );
}

function lease(node: string, a: Attributes): AuthorizationResult {
  if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) {
    return noOpinion('can only get, create, update, patch, or delete a node lease');
  }
  if (a.namespace !== NODE_LEASE_NAMESPACE) {
    return noOpinion(`can only access leases in the ${goQuote(NODE_LEASE_NAMESPACE)} system namespace`);
  }
  // A create has no name yet: NodeRestriction checks the object's.
  if (a.verb !== 'create' && a.name !== node) {
    return noOpinion('can only access node lease with the same name as the requesting node');
  }
  return ALLOW;
}

function csiNode(node: string, a: Attributes): AuthorizationResult {
  if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) {
    return noOpinion('can only get, create, update, patch, or delete a CSINode');
  }
  if (a.subresource !== '') return noOpinion('cannot authorize CSINode subresources');
  if (a.verb !== 'create' && a.name !== node) {
    return noOpinion('can only access CSINode with the same name as the requesting node');
  }
  return ALLOW;
}

function nodeObject(node: string, a: Attributes): AuthorizationResult {
  if (a.subresource === '') {
    switch (a.verb) {
      case 'create':
      case 'update':
      case 'patch':
        // NodeRestriction limits writes to the node's own object.
        return ALLOW;
      case 'get':
      case 'list':
      case 'watch':
        // By name rather than through the graph, so a kubelet can look for its Node before creating it.
        if (a.name === node) return ALLOW;
        if (a.name === '') return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
        return noOpinion(`node '${node}' cannot read '${a.name}', only its own Node object`);
    }
  } else if (a.subresource === 'status' && (a.verb === 'update' || a.verb === 'patch')) {
    return ALLOW;
  }
  return noOpinion();
}

/**
 * kube-apiserver's chain for `--authorization-mode=Node,RBAC`: system:masters, then the Node
 * authorizer, then RBAC.
 */
export function nodeAndRbacAuthorizer(
  graph: NodeGraph,
  policy: PolicySource,
  options: NodeAuthorizerOptions = {},
): UnionAuthorizer {
  return new UnionAuthorizer(
    new PrivilegedGroupsAuthorizer(),
    new NodeAuthorizer(graph, options),
    new RbacAuthorizer(policy),
  );
}
