// Stand-in kubelets for scripts/bench/metrics-scrape.ts, in a process of their own so that their
// serving cost stays out of the measured one: N mTLS HTTPS servers answering /stats/summary with a
// Summary of P pods (one container each, CPU counters advancing), as a kubelet's JSON is shaped.
// Reads its settings as JSON on stdin; prints the ports as one JSON line.
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

interface Settings {
  cert: string;
  key: string;
  ca: string;
  nodes: number;
  podsPerNode: number;
}

const input: Buffer[] = [];
for await (const chunk of process.stdin) input.push(chunk as Buffer);
const settings = JSON.parse(Buffer.concat(input).toString('utf8')) as Settings;
const started = Date.now();

function stats(name: string, cpuNs: number, now: string) {
  return {
    name,
    startTime: new Date(started - 3_600_000).toISOString(),
    cpu: { time: now, usageNanoCores: 25_000_000, usageCoreNanoSeconds: cpuNs },
    memory: { time: now, workingSetBytes: 48 * 1024 * 1024, usageBytes: 64 * 1024 * 1024 },
  };
}

function summary(node: number): string {
  const now = new Date().toISOString();
  const elapsedNs = (Date.now() - started + 3_600_000) * 1e6;
  const pods = Array.from({ length: settings.podsPerNode }, (_, i) => ({
    podRef: { name: `pod-${node}-${i}`, namespace: 'bench', uid: `uid-${node}-${i}` },
    ...stats(`pod-${node}-${i}`, elapsedNs * 0.025, now),
    containers: [stats('app', elapsedNs * 0.025, now)],
  }));
  return JSON.stringify({
    node: { nodeName: `node-${node}`, ...stats(`node-${node}`, elapsedNs * 0.5, now) },
    pods,
  });
}

const ports: number[] = [];
for (let node = 0; node < settings.nodes; node++) {
  const server = createServer(
    { cert: settings.cert, key: settings.key, ca: settings.ca, requestCert: true, rejectUnauthorized: true },
    (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(summary(node)),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ports.push((server.address() as AddressInfo).port);
}
process.stdout.write(`${JSON.stringify(ports)}\n`);
