// bench:network's NetworkPolicy part: how long a policy change takes to take effect. A client pod
// on one node opens a new TCP connection to a server pod on another every 20 ms and records each
// attempt's start and outcome; the host flips the client's label in and out of the server's
// policy every 2.5 s, and each change's latency is from just before the PATCH to the start of the
// first attempt with the new outcome (pods and host share one clock). Goal: p99 ≤ 1 s.
import type { Pod } from '../../src/api/types/core-v1.generated.js';
import type { NetworkPolicy } from '../../src/api/types/networking-v1.generated.js';
import { sleep } from '../../src/client/informers/index.js';
import { findBuiltinResource, PODS } from '../../src/client/resources.js';
import type { Client } from '../../src/client/types.js';
import { waitFor } from '../../test/e2e/kubelet/pods-support.js';
import { nodeScriptPod, runToResult } from './node-script-pod.js';
import { percentile } from './report.js';

const ROUNDS = 20;
const ROUND_MS = 2_500;
const SERVER = 'np-bench-server';
const CLIENT = 'np-bench-client';

/** argv: host, port, seconds. Prints `RESULT {"transitions":[[startMs, reachable], ...]}`. */
const PROBE_SCRIPT = `
const net = require('node:net');
const [host, port, seconds] = process.argv.slice(1);
const attempts = []; let pending = 0; const end = Date.now() + Number(seconds) * 1000;
function attempt() {
  const start = Date.now(); pending++;
  const socket = net.connect(Number(port), host); let done = false;
  const finish = (ok) => { if (done) return; done = true; socket.destroy(); attempts.push([start, ok ? 1 : 0]); pending--; };
  socket.on('connect', () => finish(true)); socket.on('error', () => finish(false)); socket.setTimeout(300, () => finish(false));
}
const timer = setInterval(() => {
  if (Date.now() < end) return attempt();
  clearInterval(timer);
  const report = () => {
    if (pending > 0) return setTimeout(report, 50);
    attempts.sort((a, b) => a[0] - b[0]);
    const transitions = []; let last = -1;
    for (const [start, ok] of attempts) if (ok !== last) { transitions.push([start, ok]); last = ok; }
    console.log('RESULT ' + JSON.stringify({ transitions }));
  };
  report();
}, 20);
`;

export interface PolicyChangeResult {
  /** Seconds from each label change to the first connection attempt with the new outcome. */
  readonly latencies: number[];
  /** Changes whose effect was not seen within the round. */
  readonly missed: number;
}

export async function policyChangeLatency(options: {
  client: Client;
  image: string;
  nodes: readonly string[];
  kubectlEnv: Record<string, string | undefined>;
  context: string;
}): Promise<PolicyChangeResult> {
  const { client, image, nodes } = options;
  const pods = client.resource<Pod>(PODS);
  const policies = client.resource<NetworkPolicy>(
    findBuiltinResource('networking.k8s.io', 'v1', 'networkpolicies')!,
  );
  const server = nodeScriptPod(
    SERVER,
    image,
    `require('node:net').createServer((s) => s.end()).listen(8080);`,
    [],
    { nodeName: nodes[1 % nodes.length]! },
  );
  server.spec!.restartPolicy = 'Always';
  server.spec!.containers[0]!.readinessProbe = { tcpSocket: { port: 8080 }, periodSeconds: 1 };
  await pods.create(server);
  const ready = await waitFor(
    () => pods.get('default', SERVER),
    (pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    120_000,
    'the policy bench server ready',
  );
  await policies.create({
    metadata: { name: 'np-bench', namespace: 'default' },
    spec: {
      podSelector: { matchLabels: { app: SERVER } },
      ingress: [{ from: [{ podSelector: { matchLabels: { role: 'allowed' } } }] }],
    },
  });
  const seconds = (ROUNDS * ROUND_MS) / 1000 + 6;
  const probe = nodeScriptPod(CLIENT, image, PROBE_SCRIPT, [ready.status!.podIP!, '8080', String(seconds)], {
    nodeName: nodes[0]!,
  });
  probe.metadata!.labels = { app: CLIENT, role: 'denied' };
  const result = runToResult<{ transitions: [number, number][] }>(
    client,
    probe,
    options.kubectlEnv,
    options.context,
    (seconds + 120) * 1000,
  );
  await waitFor(
    () => pods.get('default', CLIENT),
    (pod) => pod.status?.phase === 'Running',
    60_000,
    'the policy bench client running',
  );
  await sleep(3_000);
  const changes: [number, number][] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const allowed = round % 2 === 0 ? 1 : 0;
    changes.push([Date.now(), allowed]);
    await pods.patch('default', CLIENT, 'merge', {
      metadata: { labels: { role: allowed ? 'allowed' : 'denied' } },
    });
    await sleep(ROUND_MS);
  }
  const { transitions } = await result;
  await policies.delete('default', 'np-bench');
  await pods.delete('default', SERVER);
  const latencies: number[] = [];
  let missed = 0;
  changes.forEach(([at, state], i) => {
    const until = changes[i + 1]?.[0] ?? Number.POSITIVE_INFINITY;
    const seen = transitions.find(([start, ok]) => start >= at && start < until && ok === state);
    if (seen) latencies.push((seen[0] - at) / 1000);
    else missed++;
  });
  return { latencies, missed };
}

/** p50 / p99 / max of the latencies, as a table row's cells. */
export function policyChangeRow(result: PolicyChangeResult): string[] {
  const ms = (seconds: number) => `${Math.round(seconds * 1000)} ms`;
  const { latencies } = result;
  return [
    'policy change effective (label flip, cross-node)',
    latencies.length
      ? `p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}, max ${ms(Math.max(...latencies))}`
      : 'none seen',
    `${latencies.length}${result.missed ? ` (+${result.missed} not seen in ${ROUND_MS / 1000} s)` : ''}`,
  ];
}
