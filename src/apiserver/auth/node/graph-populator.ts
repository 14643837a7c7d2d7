/**
 * Keeps a NodeGraph current from the store, as kube-apiserver feeds the Node authorizer's graph
 * from informers: one list at start, then every write as it happens. Authorization reads only
 * the graph, never the store.
 */
import type { PersistentVolume, Pod } from '../../../api/types/core-v1.generated.js';
import type { Store, WatchEvent } from '../../../storage/index.js';
import { StoreFollower } from '../store-follower.js';
import { NodeGraph } from './graph.js';

const PODS = '/registry/pods/';
const VOLUMES = '/registry/persistentvolumes/';
const ATTACHMENTS = '/registry/storage.k8s.io/volumeattachments/';
const SLICES = '/registry/resource.k8s.io/resourceslices/';
const SOURCES = [PODS, VOLUMES, ATTACHMENTS, SLICES];

interface NodeNamed {
  spec?: { nodeName?: string };
}

export class NodeGraphPopulator {
  readonly graph: NodeGraph;
  // One watch per source prefix: every other write in the cluster costs this graph nothing.
  private readonly followers: StoreFollower[];

  constructor(
    private readonly store: Store,
    graph: NodeGraph = new NodeGraph(),
  ) {
    this.graph = graph;
    this.followers = SOURCES.map(
      (prefix) =>
        new StoreFollower(store, prefix, {
          apply: (events) => {
            for (const event of events) this.applyEvent(event);
          },
          relist: () => this.load(),
        }),
    );
  }

  /** Lists everything the graph needs, then follows changes until stop(). */
  async start(): Promise<void> {
    const revision = await this.load();
    for (const follower of this.followers) follower.start(revision);
  }

  stop(): void {
    for (const follower of this.followers) follower.stop();
  }

  /**
   * Resolves once the graph reflects every write committed before the call: the store hands
   * committed events to its watches at once, and they are applied within the same turn.
   */
  synced(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve));
  }

  private async load(): Promise<number> {
    this.graph.clear();
    // Every source at the first list's revision, so the watch resumes from one consistent point.
    const first = await this.store.list(SOURCES[0]!);
    const rest = await Promise.all(
      SOURCES.slice(1).map((prefix) => this.store.list(prefix, { revision: first.revision })),
    );
    for (const item of [...first.items, ...rest.flatMap((page) => page.items)])
      this.apply(item.key, item.value);
    return first.revision;
  }

  private applyEvent(event: WatchEvent): void {
    if (event.type === 'delete') this.remove(event.key);
    else if (event.key.startsWith(PODS) && !podMayChangeGraph(event.value!, event.prevValue)) return;
    else this.apply(event.key, event.value!);
  }

  private apply(key: string, value: string): void {
    if (key.startsWith(PODS)) this.graph.setPod(JSON.parse(value) as Pod);
    else if (key.startsWith(VOLUMES)) this.graph.setPersistentVolume(JSON.parse(value) as PersistentVolume);
    else if (key.startsWith(ATTACHMENTS))
      this.graph.setVolumeAttachment(nameOf(key), (JSON.parse(value) as NodeNamed).spec?.nodeName);
    else if (key.startsWith(SLICES))
      this.graph.setResourceSlice(nameOf(key), (JSON.parse(value) as NodeNamed).spec?.nodeName);
  }

  private remove(key: string): void {
    if (key.startsWith(PODS)) {
      const [namespace = '', name = ''] = key.slice(PODS.length).split('/');
      this.graph.deletePod(namespace, name);
    } else if (key.startsWith(VOLUMES)) this.graph.deletePersistentVolume(nameOf(key));
    else if (key.startsWith(ATTACHMENTS)) this.graph.setVolumeAttachment(nameOf(key), undefined);
    else if (key.startsWith(SLICES)) this.graph.setResourceSlice(nameOf(key), undefined);
  }
}

/**
 * False when a pod write cannot change the graph, told from the JSON text without parsing it (the
 * graph's setPod would parse it only to find the same): a pod without a node, or an update that
 * keeps the node and has no resource claim statuses (a pod's uid never changes in an update).
 * Upstream's graph populator skips the same writes: most are the kubelet's status updates.
 */
function podMayChangeGraph(value: string, prevValue: string | undefined): boolean {
  const node = nodeNameIn(value);
  if (node === undefined) return false;
  if (prevValue === undefined || value.includes('"resourceClaimStatuses"')) return true;
  return prevValue.includes('"resourceClaimStatuses"') || nodeNameIn(prevValue) !== node;
}

const NODE_NAME_FIELD = '"nodeName":"';

/** spec.nodeName from a stored pod's JSON: the only `nodeName` key a Pod has. */
function nodeNameIn(json: string): string | undefined {
  const at = json.indexOf(NODE_NAME_FIELD);
  if (at < 0) return undefined;
  const start = at + NODE_NAME_FIELD.length;
  const end = json.indexOf('"', start);
  return end > start ? json.slice(start, end) : undefined;
}

function nameOf(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}
