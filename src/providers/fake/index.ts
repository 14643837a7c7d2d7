export {
  EXIT_CODE_ANNOTATION,
  exitCodeOf,
  FakeKubelet,
  type FakeKubeletOptions,
  NETWORK_NOT_READY,
} from './fake-kubelet.js';
export {
  type ClientFactory,
  type ClientIdentity,
  FAKE_KUBELET_STOPPED_ANNOTATION,
  FAKE_NODE_LABEL,
  FakeNodes,
  type FakeNodesOptions,
  fakeNodeName,
  nodeIdentity,
} from './fake-nodes.js';
export { DEFAULT_FAKE_NODE_CAPACITY, FAKE_OS_IMAGE, fakeNodeCapacity, fakeNodeFacts } from './node-facts.js';
export { PodAddresses } from './pod-addresses.js';
export { clusterSettingsForNodes, MAX_FAKE_NODES, maxNodesOf } from './pod-network-size.js';
export {
  FAKE_RUNTIME_SCHEME,
  type FakePodInputs,
  fakeContainerId,
  fakePodStatus,
  podStatusPatch,
  reportsSameStatus,
  terminalPhase,
} from './pod-status.js';
