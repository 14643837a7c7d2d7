export {
  NODE_LEASE_NAMESPACE,
  NodeAuthorizer,
  type NodeAuthorizerOptions,
  nodeAndRbacAuthorizer,
} from './authorizer.js';
export { NodeGraph, type VertexType } from './graph.js';
export { NodeGraphPopulator } from './graph-populator.js';
export { nodeNameOf } from './identity.js';
export {
  persistentVolumeKubeletSecrets,
  podClaimNames,
  podConfigMapNames,
  podResourceClaimNames,
  podSecretNames,
  type SecretRef,
} from './pod-references.js';
