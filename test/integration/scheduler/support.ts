// What the scheduler's integration tests share: kubectl calls that must succeed, pods built as
// objects (sent as JSON), and waits for a pod to be bound or to be reported unschedulable.
import { expect } from 'vitest';
import type { Pod, PodCondition, PodSpec } from '../../../src/api/types/core-v1.generated.js';
import type { TestCluster } from '../../support/cluster.js';

export const FAKE_NODES = ['fake-node-0', 'fake-node-1', 'fake-node-2'] as const;

/** Runs kubectl and returns its stdout; fails the test on a non-zero exit. */
export async function ok(cluster: TestCluster, args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

/** Polls `check` until it returns something other than undefined. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export interface PodOptions {
  readonly labels?: Record<string, string>;
  /** Container requests, e.g. { cpu: '6' }. */
  readonly requests?: Record<string, string>;
  readonly spec?: Partial<PodSpec>;
}

/** A one-container pod (pause image: fake nodes run nothing). */
export function pod(name: string, options: PodOptions = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(options.labels && { labels: options.labels }) },
    spec: {
      containers: [
        {
          name: 'main',
          image: 'registry.k8s.io/pause:3.10',
          ...(options.requests && { resources: { requests: options.requests } }),
        },
      ],
      ...options.spec,
    },
  };
}

/** Creates objects in `namespace` with `kubectl create -f -` (a List of them, as JSON). */
export async function create(cluster: TestCluster, namespace: string, ...objects: object[]): Promise<void> {
  const list = { apiVersion: 'v1', kind: 'List', items: objects };
  await ok(cluster, ['create', '-n', namespace, '-f', '-'], JSON.stringify(list));
}

export async function getPod(cluster: TestCluster, namespace: string, name: string): Promise<Pod> {
  return JSON.parse(await ok(cluster, ['get', 'pod', name, '-n', namespace, '-o', 'json'])) as Pod;
}

/** Waits until the pod is bound and returns its node. */
export async function boundNode(cluster: TestCluster, namespace: string, name: string): Promise<string> {
  return until(`pod ${namespace}/${name} to be bound`, async () => {
    const nodeName = (await getPod(cluster, namespace, name)).spec?.nodeName;
    return nodeName || undefined;
  });
}

/** Nodes of the bound pods that carry `selector`, sorted by pod name. */
export async function nodesOf(cluster: TestCluster, namespace: string, selector: string): Promise<string[]> {
  const output = await ok(cluster, [
    'get',
    'pods',
    '-n',
    namespace,
    '-l',
    selector,
    '--sort-by=.metadata.name',
    '-o',
    'jsonpath={range .items[*]}{.spec.nodeName}{"\\n"}{end}',
  ]);
  return output.split('\n').filter(Boolean);
}

/** Waits until the scheduler reported the pod unschedulable; returns its PodScheduled condition. */
export async function unschedulable(
  cluster: TestCluster,
  namespace: string,
  name: string,
): Promise<PodCondition> {
  return until(`pod ${namespace}/${name} to be reported unschedulable`, async () => {
    const current = await getPod(cluster, namespace, name);
    expect(current.spec?.nodeName ?? '').toBe('');
    const condition = current.status?.conditions?.find((candidate) => candidate.type === 'PodScheduled');
    return condition?.status === 'False' ? condition : undefined;
  });
}

/**
 * Waits until `kubectl describe pod` lists a FailedScheduling event from default-scheduler with
 * exactly this message, and returns the describe output.
 */
export async function describedFailure(
  cluster: TestCluster,
  namespace: string,
  name: string,
  message: string,
): Promise<string> {
  let seen: string[] = [];
  try {
    return await until(`a FailedScheduling event on ${namespace}/${name}`, async () => {
      const described = await ok(cluster, ['describe', 'pod', name, '-n', namespace]);
      seen = described
        .split('\n')
        .filter((line) => /^\s+Warning\s+FailedScheduling\s.*\sdefault-scheduler\s/.test(line))
        .map((line) => line.slice(line.indexOf('default-scheduler') + 'default-scheduler'.length).trim());
      return seen.includes(message) ? described : undefined;
    });
  } catch (error) {
    throw new Error(`${String(error)}; FailedScheduling events seen: ${JSON.stringify(seen)}`);
  }
}

/**
 * Waits until the pod is reported unschedulable with exactly `message`, both in its PodScheduled
 * condition (reason Unschedulable) and in a FailedScheduling event that `kubectl describe` shows.
 */
export async function expectUnschedulable(
  cluster: TestCluster,
  namespace: string,
  name: string,
  message: string,
): Promise<void> {
  await until(`pod ${namespace}/${name} to be reported unschedulable with the expected message`, async () => {
    const condition = await unschedulable(cluster, namespace, name);
    expect(condition.reason).toBe('Unschedulable');
    return condition.message === message ? true : undefined;
  }).catch(async (error: unknown) => {
    const condition = await unschedulable(cluster, namespace, name);
    throw new Error(`${String(error)}; PodScheduled message: ${JSON.stringify(condition.message)}`);
  });
  await describedFailure(cluster, namespace, name, message);
}

/** Messages of the pod's events with this reason (deleted pods keep their events). */
export async function eventMessages(
  cluster: TestCluster,
  namespace: string,
  name: string,
  reason?: string,
): Promise<string[]> {
  const selector = [`involvedObject.name=${name}`, ...(reason ? [`reason=${reason}`] : [])].join(',');
  const output = await ok(cluster, [
    'get',
    'events',
    '-n',
    namespace,
    '--field-selector',
    selector,
    '-o',
    'jsonpath={range .items[*]}{.message}{"\\n"}{end}',
  ]);
  return output.split('\n').filter(Boolean);
}
