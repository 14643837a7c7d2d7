// Builders for scheduler tests: nodes, pods and a snapshot + handle to run plugins against.
import type { Container, Node, Pod, Taint } from '../../../src/api/types/core-v1.generated.js';
import { NodeInfo } from '../../../src/scheduler/cache/node-info.js';
import { PodInfo } from '../../../src/scheduler/cache/pod-info.js';
import { Snapshot } from '../../../src/scheduler/cache/snapshot.js';
import { ClusterObjects } from '../../../src/scheduler/cluster-objects.js';
import { CycleState } from '../../../src/scheduler/framework/cycle-state.js';
import { Framework, type PluginEntry } from '../../../src/scheduler/framework/framework.js';
import type { FrameworkHandle } from '../../../src/scheduler/framework/handle.js';
import type { FilterPlugin, Plugin, PreFilterPlugin } from '../../../src/scheduler/framework/interfaces.js';
import { Code } from '../../../src/scheduler/framework/status.js';
import { Nominator } from '../../../src/scheduler/queue/nominator.js';

export interface NodeOptions {
  labels?: Record<string, string>;
  cpu?: string;
  memory?: string;
  pods?: string;
  allocatable?: Record<string, string>;
  taints?: Taint[];
  unschedulable?: boolean;
  images?: { names: string[]; sizeBytes: number }[];
}

export function node(name: string, options: NodeOptions = {}): Node {
  return {
    metadata: {
      name,
      uid: `node-uid-${name}`,
      labels: { 'kubernetes.io/hostname': name, ...options.labels },
    },
    spec: { taints: options.taints, unschedulable: options.unschedulable },
    status: {
      allocatable: options.allocatable ?? {
        cpu: options.cpu ?? '4',
        memory: options.memory ?? '8Gi',
        pods: options.pods ?? '110',
      },
      images: options.images,
    },
  };
}

export interface PodOptions {
  namespace?: string;
  labels?: Record<string, string>;
  cpu?: string;
  memory?: string;
  requests?: Record<string, string>;
  nodeName?: string;
  priority?: number;
  spec?: Partial<Pod['spec'] & object>;
  containers?: Container[];
  startTime?: string;
  uid?: string;
}

let podCounter = 0;

export function pod(name: string, options: PodOptions = {}): Pod {
  const requests: Record<string, string> = { ...options.requests };
  if (options.cpu !== undefined) requests.cpu = options.cpu;
  if (options.memory !== undefined) requests.memory = options.memory;
  const containers = options.containers ?? [
    { name: 'main', image: 'app:1', resources: Object.keys(requests).length > 0 ? { requests } : {} },
  ];
  return {
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      uid: options.uid ?? `uid-${name}-${++podCounter}`,
      labels: options.labels,
      resourceVersion: '1',
    },
    spec: {
      schedulerName: 'default-scheduler',
      containers,
      nodeName: options.nodeName,
      priority: options.priority,
      ...options.spec,
    },
    status: { phase: options.nodeName ? 'Running' : 'Pending', startTime: options.startTime },
  };
}

/** A node info holding the node and the given pods (their nodeName set to the node). */
export function nodeInfo(nodeObject: Node, pods: Pod[] = []): NodeInfo {
  const info = new NodeInfo(nodeObject);
  for (const member of pods) {
    info.addPodInfo(
      new PodInfo({ ...member, spec: { ...member.spec!, nodeName: nodeObject.metadata!.name } }),
    );
  }
  return info;
}

export interface TestHandle extends FrameworkHandle {
  readonly nominatorImpl: Nominator;
  setFramework(framework: Framework): void;
}

export function testHandle(snapshot: Snapshot, objects = new ClusterObjects()): TestHandle {
  let framework: Framework | undefined;
  const nominatorImpl = new Nominator();
  return {
    snapshot: () => snapshot,
    objects,
    nominator: nominatorImpl,
    nominatorImpl,
    framework: () => {
      if (framework === undefined) throw new Error('no framework');
      return framework;
    },
    setFramework: (built) => {
      framework = built;
    },
    random: () => 0,
    activate: () => {},
  };
}

/** A framework of the given plugins over the given node infos. */
export function frameworkOf(
  nodeInfos: NodeInfo[],
  plugins: ((handle: FrameworkHandle) => Plugin)[],
  objects?: ClusterObjects,
) {
  const snapshot = Snapshot.of(nodeInfos);
  const handle = testHandle(snapshot, objects);
  const entries: PluginEntry[] = plugins.map((create) => ({ create }));
  const framework = new Framework({ schedulerName: 'default-scheduler', plugins: entries }, handle);
  handle.setFramework(framework);
  return { snapshot, handle, framework };
}

/** Runs PreFilter then Filter of one plugin on every node; returns messages ('' = fits). */
export function filterAll(
  plugin: Plugin & {
    preFilter?: (state: CycleState, podInfo: PodInfo, nodes: readonly NodeInfo[]) => unknown;
    filter: (
      state: CycleState,
      podInfo: PodInfo,
      nodeInfo: NodeInfo,
    ) => { message(): string; code: number } | null;
  },
  podObject: Pod,
  nodeInfos: NodeInfo[],
): Record<string, string> {
  const state = new CycleState();
  const podInfo = new PodInfo(podObject);
  const result = plugin.preFilter?.(state, podInfo, nodeInfos) as
    | { status?: { code: number } }
    | null
    | undefined;
  const out: Record<string, string> = {};
  for (const info of nodeInfos) {
    if (result?.status?.code === 5) {
      out[info.name] = '';
      continue;
    }
    out[info.name] = plugin.filter(state, podInfo, info)?.message() ?? '';
  }
  return out;
}

/** PreScore + Score + NormalizeScore of the framework's score plugins (weight 1 each) over `nodes`. */
export function scoresOf(
  framework: Framework,
  podObject: Pod,
  nodes: readonly NodeInfo[],
): Record<string, number> {
  const state = new CycleState();
  const podInfo = new PodInfo(podObject);
  const preScore = framework.runPreScorePlugins(state, podInfo, nodes);
  if (preScore !== null) throw new Error(preScore.message());
  const { totals, status } = framework.runScorePlugins(state, podInfo, nodes);
  if (status !== null) throw new Error(status.message());
  return Object.fromEntries(nodes.map((info, index) => [info.name, totals[index]!]));
}

/** PreFilter + Filter of the framework's plugins on every node: messages ('' = fits). */
export function filterWith(
  framework: Framework,
  podObject: Pod,
  nodes: readonly NodeInfo[],
): Record<string, string> {
  const state = new CycleState();
  const podInfo = new PodInfo(podObject);
  const preFilter = framework.runPreFilterPlugins(state, podInfo, nodes);
  const out: Record<string, string> = {};
  for (const info of nodes) {
    if (preFilter.status !== null) {
      out[info.name] = preFilter.status.message();
      continue;
    }
    if (preFilter.nodeNames !== null && !preFilter.nodeNames.has(info.name)) {
      out[info.name] = '<excluded>';
      continue;
    }
    out[info.name] = framework.runFilterPlugins(state, podInfo, info)?.message() ?? '';
  }
  return out;
}

/** A plugin's PreFilter rejection ('Skip' when it skips), or each node's Filter message ('' when it fits). */
export function preFilterThenFilter(
  plugin: PreFilterPlugin & FilterPlugin,
  nodes: readonly NodeInfo[],
  podObject: Pod,
  state = new CycleState(),
): string | Record<string, string> {
  const podInfo = new PodInfo(podObject);
  const result = plugin.preFilter(state, podInfo, nodes);
  if (result?.status) return result.status.code === Code.Skip ? 'Skip' : result.status.message();
  const out: Record<string, string> = {};
  for (const info of nodes) out[info.name] = plugin.filter(state, podInfo, info)?.message() ?? '';
  return out;
}
