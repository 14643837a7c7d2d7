// Controllers benchmark: `npm run bench:controllers` (builds first). Starts a real control plane
// as a child process with 100 simulated nodes (`--fake-nodes 100`) and drives it over HTTPS:
// (a) a Deployment of 1,000 replicas until every pod is Running, with the control plane's CPU
// time over that span (from /proc/<pid>/stat); (b) a namespace holding 5,000 mixed objects
// deleted until GET namespace answers 404; (c) a Job of 1,000 completions with parallelism 100
// whose pods exit 0 at once, until it is Complete (completions/s, CPU); (d) a StatefulSet of 100
// replicas (podManagementPolicy Parallel) until all are Ready; then, on a second control plane
// with 1,000 fake nodes, (e) a DaemonSet until a pod is available on every node. Prints a table,
// then one JSON line.
// BENCH_CPU_PROF=DIR writes the control plane's V8 CPU profile into DIR when it exits.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Pod } from '../../src/api/types/core-v1.generated.js';
import {
  CONFIG_MAPS,
  DAEMON_SETS,
  DEPLOYMENTS,
  JOBS,
  NAMESPACES,
  NODES,
  PODS,
  ROLE_BINDINGS,
  ROLES,
  SECRETS,
  SERVICE_ACCOUNTS,
  SERVICES,
  STATEFUL_SETS,
} from '../../src/client/resources.js';
import { isNotFound } from '../../src/client/rest/index.js';
import { httpsClient } from '../../src/client/transports.js';
import type { ApiObject, Client, ResourceRef } from '../../src/client/types.js';
import { builtinControlPlaneCommand } from '../../src/cluster/controlplane-process.js';
import { ensureClusterPki } from '../../src/pki/cluster-pki.js';
import { cpuSeconds, createNamespace, pool, until } from './fake-cluster.js';
import { printTable } from './report.js';

const FAKE_NODES = 100;
/** Nodes of the second control plane, for the DaemonSet. */
const DAEMON_FAKE_NODES = 1000;
const REPLICAS = 1000;
const CREATE_CONCURRENCY = 16;
/** The control plane as `tkube up` starts it (the bundle, with its V8 flags). */
const controlPlane = builtinControlPlaneCommand();
const dirs: string[] = [];

/** What the namespace holds (5,000 objects in all); services add their Endpoints and slices. */
const NAMESPACE_CONTENT: readonly { ref: ResourceRef; count: number; make: (name: string) => ApiObject }[] = [
  { ref: CONFIG_MAPS, count: 1500, make: (name) => ({ metadata: { name }, data: { key: 'x'.repeat(256) } }) },
  { ref: SECRETS, count: 1000, make: (name) => ({ metadata: { name }, stringData: { token: name } }) },
  { ref: SERVICE_ACCOUNTS, count: 500, make: (name) => ({ metadata: { name } }) },
  {
    ref: SERVICES,
    count: 500,
    make: (name) => ({ metadata: { name }, spec: { selector: { svc: name }, ports: [{ port: 80 }] } }),
  },
  {
    ref: PODS,
    count: 1000,
    make: (name) => ({ metadata: { name, labels: { app: 'bench-pod' } }, spec: podSpec() }),
  },
  {
    ref: ROLES,
    count: 250,
    make: (name) => ({
      metadata: { name },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    }),
  },
  {
    ref: ROLE_BINDINGS,
    count: 250,
    make: (name) => ({
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name: 'default' }],
    }),
  },
];

function podSpec() {
  return {
    containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }],
    terminationGracePeriodSeconds: 30,
  };
}

interface BenchControlPlane {
  child: ChildProcess;
  port: number;
  readyMs: number;
  client: Client;
}

/** A control plane with `fakeNodes` on a state directory of its own, and an admin client. */
async function startBenchControlPlane(fakeNodes: number): Promise<BenchControlPlane> {
  const dir = mkdtempSync(join(tmpdir(), 'tkube-bench-controllers-'));
  dirs.push(dir);
  const pki = await ensureClusterPki(join(dir, 'pki'));
  const started = await startControlPlane(dir, fakeNodes);
  const client = httpsClient({
    server: `https://127.0.0.1:${started.port}`,
    ca: pki.ca.certificatePem,
    cert: pki.admin.certificatePem,
    key: pki.admin.privateKeyPem,
    component: 'bench-controllers',
  });
  return { ...started, client };
}

function startControlPlane(
  dir: string,
  fakeNodes: number,
): Promise<{ child: ChildProcess; port: number; readyMs: number }> {
  const profileDir = process.env.BENCH_CPU_PROF;
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', resolve(profileDir)] : [];
  return new Promise((resolvePort, reject) => {
    const started = performance.now();
    const child = spawn(
      controlPlane.file,
      [
        ...profile,
        ...controlPlane.args,
        '--state-dir',
        dir,
        '--api-port',
        '0',
        '--fake-nodes',
        String(fakeNodes),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /serving on port (\d+)/.exec(output);
      if (match) resolvePort({ child, port: Number(match[1]), readyMs: performance.now() - started });
    });
    child.on('exit', (code) => reject(new Error(`control plane exited (${code}): ${output}`)));
  });
}

/** User plus system CPU time the process has used so far, in seconds. */

/**
 * Watches the namespace's pods from now on and resolves once `count` of them are Running (and
 * not being deleted). Start it before creating the pods.
 */
async function podsRunning(client: Client, namespace: string, count: number): Promise<() => Promise<void>> {
  const pods = client.resource<Pod>(PODS);
  const { resourceVersion } = (await pods.list(namespace, { limit: 1 })).metadata;
  const abort = new AbortController();
  const running = new Set<string>();
  const done = (async () => {
    for await (const event of pods.watch(namespace, { resourceVersion, signal: abort.signal })) {
      if (event.type === 'ERROR') throw new Error(`pod watch: ${event.object.message}`);
      if (event.type === 'BOOKMARK') continue;
      const pod = event.object;
      const name = pod.metadata?.name ?? '';
      if (event.type !== 'DELETED' && pod.status?.phase === 'Running' && !pod.metadata?.deletionTimestamp)
        running.add(name);
      else running.delete(name);
      if (running.size >= count) return;
    }
    throw new Error(`pod watch ended with ${running.size} of ${count} pods Running`);
  })();
  // Awaited later: until then a failure must not count as unhandled.
  done.catch(() => undefined);
  return async () => {
    try {
      await done;
    } finally {
      abort.abort();
    }
  };
}

/** Runs `task` for 0..total-1, `concurrency` at a time. */

async function deploymentToRunning(client: Client, pid: number) {
  const namespace = 'bench-deploy';
  await createNamespace(client, namespace);
  const allRunning = await podsRunning(client, namespace, REPLICAS);
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  await client.resource(DEPLOYMENTS).create({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace },
    spec: {
      replicas: REPLICAS,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: podSpec() },
    },
  } as ApiObject);
  await allRunning();
  const runningMs = performance.now() - started;
  const cpu = cpuSeconds(pid) - cpuBefore;
  await until('the Deployment to report every replica available', async () => {
    const deployment = (await client.resource(DEPLOYMENTS).get(namespace, 'web')) as {
      status?: { availableReplicas?: number };
    };
    return deployment.status?.availableReplicas === REPLICAS ? true : undefined;
  });
  const availableMs = performance.now() - started;
  return { runningMs, availableMs, cpu };
}

async function namespaceDeletion(client: Client, pid: number) {
  const namespace = 'bench-ns';
  await createNamespace(client, namespace);
  const pods = NAMESPACE_CONTENT.find((kind) => kind.ref === PODS)!.count;
  const podsUp = await podsRunning(client, namespace, pods);
  const jobs = NAMESPACE_CONTENT.flatMap(({ ref, count, make }) =>
    Array.from({ length: count }, (_, i) => () => {
      const object = make(`${ref.resource}-${i}`);
      return client.resource(ref).create({ ...object, metadata: { ...object.metadata, namespace } });
    }),
  );
  const objects = jobs.length;
  const createStarted = performance.now();
  await pool(objects, CREATE_CONCURRENCY, (i) => jobs[i]!());
  const createMs = performance.now() - createStarted;
  await podsUp();
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  await client.resource(NAMESPACES).delete('', namespace);
  await until(`namespace ${namespace} to be gone`, () =>
    client
      .resource(NAMESPACES)
      .get('', namespace)
      .then(
        () => undefined,
        (error: unknown) => {
          if (isNotFound(error)) return true;
          throw error;
        },
      ),
  );
  return { objects, createMs, deleteMs: performance.now() - started, cpu: cpuSeconds(pid) - cpuBefore };
}

const JOB_COMPLETIONS = 1000;
const JOB_PARALLELISM = 100;

async function jobToComplete(client: Client, pid: number) {
  const namespace = 'bench-job';
  await createNamespace(client, namespace);
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  await client.resource(JOBS).create({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'work', namespace },
    spec: {
      completions: JOB_COMPLETIONS,
      parallelism: JOB_PARALLELISM,
      template: {
        // The fake kubelet ends the pod with this exit code once it runs.
        metadata: { annotations: { 'fake.tkube.dev/exit-code': '0' } },
        spec: { ...podSpec(), restartPolicy: 'Never' },
      },
    },
  } as ApiObject);
  await until('the Job to complete', async () => {
    const job = (await client.resource(JOBS).get(namespace, 'work')) as {
      status?: { conditions?: { type: string; status: string }[] };
    };
    return job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')
      ? true
      : undefined;
  });
  return { completeMs: performance.now() - started, cpu: cpuSeconds(pid) - cpuBefore };
}

const STATEFUL_REPLICAS = 100;

/** A StatefulSet of 100 (Parallel) from the create until its status counts every replica Ready. */
async function statefulSetToReady(client: Client, pid: number) {
  const namespace = 'bench-sts';
  await createNamespace(client, namespace);
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  await client.resource(STATEFUL_SETS).create({
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db', namespace },
    spec: {
      replicas: STATEFUL_REPLICAS,
      podManagementPolicy: 'Parallel',
      serviceName: 'db',
      selector: { matchLabels: { app: 'db' } },
      template: { metadata: { labels: { app: 'db' } }, spec: podSpec() },
    },
  } as ApiObject);
  await until('the StatefulSet to report every replica Ready', async () => {
    const set = (await client.resource(STATEFUL_SETS).get(namespace, 'db')) as {
      status?: { readyReplicas?: number };
    };
    return set.status?.readyReplicas === STATEFUL_REPLICAS ? true : undefined;
  });
  return { readyMs: performance.now() - started, cpu: cpuSeconds(pid) - cpuBefore };
}

/** Every node of the control plane Ready (the fake kubelets report once they have a pod CIDR). */
async function nodesReady(client: Client, count: number): Promise<void> {
  await until(`${count} Ready nodes`, async () => {
    const nodes = (await client.resource(NODES).list('')) as {
      items: { status?: { conditions?: { type: string; status: string }[] } }[];
    };
    const ready = nodes.items.filter((node) =>
      node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
    );
    return ready.length >= count ? true : undefined;
  });
}

/** A DaemonSet from the create until its status counts a pod available on every node. */
async function daemonSetToAvailable(client: Client, pid: number, nodes: number) {
  const namespace = 'bench-ds';
  await createNamespace(client, namespace);
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  await client.resource(DAEMON_SETS).create({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec: podSpec() },
    },
  } as ApiObject);
  await until('the DaemonSet to report a pod available on every node', async () => {
    const set = (await client.resource(DAEMON_SETS).get(namespace, 'agent')) as {
      status?: { numberAvailable?: number; desiredNumberScheduled?: number };
    };
    return set.status?.desiredNumberScheduled === nodes && set.status.numberAvailable === nodes
      ? true
      : undefined;
  });
  return { availableMs: performance.now() - started, cpu: cpuSeconds(pid) - cpuBefore };
}

async function stopControlPlane(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((resolveExit) => {
    const timer = setTimeout(resolveExit, 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolveExit(undefined);
    });
  });
}

const children: ChildProcess[] = [];
try {
  const started = await startBenchControlPlane(FAKE_NODES);
  children.push(started.child);
  const { client } = started;
  const pid = started.child.pid!;
  const deployment = await deploymentToRunning(client, pid);
  const namespace = await namespaceDeletion(client, pid);
  const job = await jobToComplete(client, pid);
  const statefulSet = await statefulSetToReady(client, pid);
  await client.close();
  await stopControlPlane(started.child);

  const daemonPlaneSpawned = performance.now();
  const daemonPlane = await startBenchControlPlane(DAEMON_FAKE_NODES);
  children.push(daemonPlane.child);
  await nodesReady(daemonPlane.client, DAEMON_FAKE_NODES);
  const daemonPlaneReadyMs = performance.now() - daemonPlaneSpawned;
  const daemonSet = await daemonSetToAvailable(daemonPlane.client, daemonPlane.child.pid!, DAEMON_FAKE_NODES);
  await daemonPlane.client.close();
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  printTable(`tkube controllers (${FAKE_NODES} fake nodes, control plane as a child process)`, [
    ['measure', 'tkube', 'note'],
    ['control plane start, fake nodes Ready', seconds(started.readyMs), `--fake-nodes ${FAKE_NODES}`],
    [
      `Deployment of ${REPLICAS} replicas: all pods Running`,
      seconds(deployment.runningMs),
      'from the create',
    ],
    ['  control plane CPU over that span', `${deployment.cpu.toFixed(2)} s`, 'user + system'],
    ['  Deployment status: all available', seconds(deployment.availableMs), 'from the create'],
    [
      `namespace of ${namespace.objects} objects: creating them`,
      seconds(namespace.createMs),
      `${CREATE_CONCURRENCY} clients`,
    ],
    ['namespace deleted (GET → 404)', seconds(namespace.deleteMs), 'cm, secret, sa, svc, pod, role, binding'],
    ['  control plane CPU over that span', `${namespace.cpu.toFixed(2)} s`, 'user + system'],
    [
      `Job of ${JOB_COMPLETIONS} completions, parallelism ${JOB_PARALLELISM}: Complete`,
      seconds(job.completeMs),
      `${(JOB_COMPLETIONS / (job.completeMs / 1000)).toFixed(1)} completions/s`,
    ],
    ['  control plane CPU over that span', `${job.cpu.toFixed(2)} s`, 'user + system'],
    [
      `StatefulSet of ${STATEFUL_REPLICAS} (Parallel): all Ready`,
      seconds(statefulSet.readyMs),
      'from the create',
    ],
    ['  control plane CPU over that span', `${statefulSet.cpu.toFixed(2)} s`, 'user + system'],
    [
      `control plane with ${DAEMON_FAKE_NODES} fake nodes: all Ready`,
      seconds(daemonPlaneReadyMs),
      'from the spawn',
    ],
    [
      `DaemonSet on ${DAEMON_FAKE_NODES} fake nodes: all available`,
      seconds(daemonSet.availableMs),
      'from the create',
    ],
    ['  control plane CPU over that span', `${daemonSet.cpu.toFixed(2)} s`, 'user + system'],
  ]);
  console.log(
    JSON.stringify({
      fakeNodes: FAKE_NODES,
      fakeNodesReadyMs: Math.round(started.readyMs),
      deploymentRunningMs: Math.round(deployment.runningMs),
      deploymentCpuSeconds: Number(deployment.cpu.toFixed(2)),
      deploymentAvailableMs: Math.round(deployment.availableMs),
      namespaceObjects: namespace.objects,
      namespaceDeleteMs: Math.round(namespace.deleteMs),
      namespaceDeleteCpuSeconds: Number(namespace.cpu.toFixed(2)),
      jobCompleteMs: Math.round(job.completeMs),
      jobCompletionsPerSecond: Number((JOB_COMPLETIONS / (job.completeMs / 1000)).toFixed(1)),
      jobCpuSeconds: Number(job.cpu.toFixed(2)),
      statefulSetReadyMs: Math.round(statefulSet.readyMs),
      statefulSetCpuSeconds: Number(statefulSet.cpu.toFixed(2)),
      daemonFakeNodes: DAEMON_FAKE_NODES,
      daemonSetAvailableMs: Math.round(daemonSet.availableMs),
      daemonSetCpuSeconds: Number(daemonSet.cpu.toFixed(2)),
    }),
  );
} finally {
  for (const child of children) await stopControlPlane(child);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
