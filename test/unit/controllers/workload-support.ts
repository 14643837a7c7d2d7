// Helpers for the workload controller tests: a stand-in kubelet that marks pods Running and Ready
// through pods/status, and small readers of pods, owners and events.
import type { Deployment } from '../../../src/api/types/apps-v1.generated.js';
import type { Event, Namespace, Pod } from '../../../src/api/types/core-v1.generated.js';
import { DEPLOYMENTS, EVENTS, NAMESPACES, PODS } from '../../../src/client/resources.js';
import type { ApiObject, Client } from '../../../src/client/types.js';
import { eventually } from '../../support/control-plane.js';

/** What a kubelet reports once a pod's containers run and pass readiness. */
export async function markPodReady(client: Client, pod: Pod, readySinceMs = Date.now()): Promise<Pod> {
  const at = `${new Date(readySinceMs).toISOString().slice(0, 19)}Z`;
  return client.resource<Pod>(PODS).patch(
    pod.metadata?.namespace ?? '',
    pod.metadata?.name ?? '',
    'merge',
    {
      status: {
        phase: 'Running',
        podIP: '10.244.0.10',
        conditions: [
          { type: 'Ready', status: 'True', lastTransitionTime: at },
          { type: 'ContainersReady', status: 'True', lastTransitionTime: at },
        ],
      },
    },
    { subresource: 'status' },
  );
}

/** Active (not deleting) pods in the namespace controlled by the object with `ownerUid`. */
export async function podsOwnedBy(client: Client, namespace: string, ownerUid: string): Promise<Pod[]> {
  const { items } = await client.resource<Pod>(PODS).list(namespace);
  return items.filter(
    (pod) =>
      pod.metadata?.deletionTimestamp === undefined &&
      (pod.metadata?.ownerReferences ?? []).some((ref) => ref.controller && ref.uid === ownerUid),
  );
}

/** Waits until exactly `count` pods are owned, and returns them. */
export function ownedPodsBecome(client: Client, namespace: string, ownerUid: string, count: number) {
  return eventually(async () => {
    const pods = await podsOwnedBy(client, namespace, ownerUid);
    return pods.length === count ? pods : undefined;
  });
}

/** Events about an object, as recorded so far. */
export async function eventsAbout(client: Client, object: ApiObject): Promise<Event[]> {
  const namespace = object.metadata?.namespace ?? '';
  const { items } = await client.resource<Event>(EVENTS).list(namespace);
  return items.filter((event) => event.involvedObject.uid === object.metadata?.uid);
}

/** Waits for an event with this reason and message about the object. */
export function eventRecorded(client: Client, object: ApiObject, reason: string, message: string | RegExp) {
  return eventually(async () =>
    (await eventsAbout(client, object)).find(
      (event) =>
        event.reason === reason &&
        (typeof message === 'string' ? event.message === message : message.test(event.message ?? '')),
    ),
  );
}

export interface FakeKubelet {
  stop(): Promise<void>;
}

/**
 * A stand-in for the kubelets of a namespace: every `intervalMs` it marks Running and Ready the
 * pods that are not yet and that `accept` lets through (all by default).
 */
export function startFakeKubelet(
  client: Client,
  namespace: string,
  accept: (pod: Pod) => boolean = () => true,
  intervalMs = 25,
): FakeKubelet {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const { items } = await client.resource<Pod>(PODS).list(namespace);
      for (const pod of items) {
        if (stopped) break;
        if (isReady(pod) || pod.metadata?.deletionTimestamp !== undefined || !accept(pod)) continue;
        await markPodReady(client, pod).catch(() => undefined);
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/**
 * Objects of one kind in a namespace as a watch reports them: listed first, then `onChange` runs
 * after every watch event with the current set.
 */
export async function watchAll<T extends ApiObject>(
  client: Client,
  ref: Parameters<Client['resource']>[0],
  namespace: string,
  onChange: (objects: ReadonlyMap<string, T>) => void,
): Promise<{ stop(): Promise<void> }> {
  const abort = new AbortController();
  const resource = client.resource<T>(ref);
  const listed = await resource.list(namespace);
  const objects = new Map<string, T>(listed.items.map((item) => [item.metadata?.name ?? '', item]));
  const resourceVersion = listed.metadata.resourceVersion;
  const loop = (async () => {
    try {
      for await (const event of resource.watch(namespace, { signal: abort.signal, resourceVersion })) {
        if (event.type === 'ERROR' || event.type === 'BOOKMARK') continue;
        const name = event.object.metadata?.name ?? '';
        if (event.type === 'DELETED') objects.delete(name);
        else objects.set(name, event.object);
        onChange(objects);
      }
    } catch (error) {
      if (!abort.signal.aborted) throw error;
    }
  })();
  return {
    async stop() {
      abort.abort();
      await loop;
    },
  };
}

export function isReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

export async function createNamespace(client: Client, name: string): Promise<void> {
  await client.resource<Namespace>(NAMESPACES).create({ metadata: { name } });
}

/** A Deployment of one container, selecting `app=<name>`. */
export function simpleDeployment(
  namespace: string,
  name: string,
  replicas: number,
  image: string,
): Deployment {
  return {
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image }] } },
    },
  };
}

/** Waits until the Deployment passes `check`, and returns it. */
export function deploymentBecomes(
  client: Client,
  namespace: string,
  name: string,
  check: (d: Deployment) => boolean,
  timeoutMs = 15_000,
): Promise<Deployment> {
  return eventually(async () => {
    const current = await client.resource<Deployment>(DEPLOYMENTS).get(namespace, name);
    return check(current) ? current : undefined;
  }, timeoutMs);
}

/** What `kubectl rollout status` waits for: the spec observed, every replica updated and available. */
export function rolledOut(d: Deployment): boolean {
  const status = d.status ?? {};
  const replicas = d.spec?.replicas ?? 1;
  return (
    (status.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
    (status.updatedReplicas ?? 0) === replicas &&
    (status.replicas ?? 0) === replicas &&
    (status.availableReplicas ?? 0) === replicas
  );
}
