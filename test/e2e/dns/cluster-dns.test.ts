// Cluster DNS on `tkube up --nodes 2`, asked with busybox's nslookup from a pod: a service, a
// headless service (every pod's address), an SRV record, a pod record, a StatefulSet-style
// hostname.subdomain record, an ExternalName (its target resolved upstream), a name only the
// node's resolver knows (Docker's embedded DNS: a node container's name), and NXDOMAIN for a
// missing service; asked of the node's address directly, and through the kube-dns ClusterIP
// (10.96.0.10, routed by the agent's proxy) as pods with dnsPolicy ClusterFirst ask.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Endpoints, Node, Pod, Service } from '../../../src/api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../../src/api/types/discovery-v1.generated.js';
import { ENDPOINT_SLICES, ENDPOINTS, NODES, SERVICES } from '../../../src/client/resources.js';
import {
  BUSYBOX,
  isReady,
  isRunning,
  type KubeletCluster,
  podOn,
  startKubeletCluster,
  waitFor,
  waitForPod,
} from '../kubelet/pods-support.js';

let cluster: KubeletCluster;
const nodeIPs = new Map<string, string>();

beforeAll(async () => {
  cluster = await startKubeletCluster('dn');
  for (const node of (await cluster.client.resource<Node>(NODES).list('')).items) {
    const ip = node.status?.addresses?.find((address) => address.type === 'InternalIP')?.address;
    if (ip) nodeIPs.set(node.metadata!.name!, ip);
  }
}, 300_000);

afterAll(async () => {
  await cluster?.down();
}, 120_000);

const terminated = (pod: Pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

function httpd(
  node: string,
  name: string,
  labels: Record<string, string>,
  extra: Partial<NonNullable<Pod['spec']>> = {},
): Pod {
  const pod = podOn(node, name, {
    ...extra,
    containers: [
      {
        name: 'web',
        image: BUSYBOX,
        command: ['sh', '-c', 'echo ok > /tmp/index.html && exec httpd -f -p 8080 -h /tmp'],
        ports: [{ name: 'http', containerPort: 8080 }],
      },
    ],
  });
  pod.metadata!.labels = labels;
  return pod;
}

/** Runs nslookup for each question in a pod on `node`; the output per question, keyed by its label. */
async function lookups(
  node: string,
  name: string,
  questions: readonly (readonly [label: string, args: string])[],
): Promise<Map<string, string>> {
  const script = questions
    .map(([label, args]) => `echo "=== ${label}"; nslookup ${args}; echo "rc=$?"`)
    .join('; ');
  await cluster.pods.create(
    podOn(node, name, {
      restartPolicy: 'Never',
      containers: [{ name: 'client', image: BUSYBOX, command: ['sh', '-c', script] }],
    }),
  );
  const pod = await waitForPod(cluster, name, terminated, 120_000);
  expect(pod.status?.phase).toBe('Succeeded');
  const logs = await cluster.kubectl(['logs', name]);
  expect(logs.exitCode, logs.stderr).toBe(0);
  const sections = new Map<string, string>();
  for (const section of logs.stdout.split('=== ').slice(1)) {
    const newline = section.indexOf('\n');
    sections.set(section.slice(0, newline), section.slice(newline + 1));
  }
  return sections;
}

describe('cluster DNS', () => {
  it('shows kube-dns with an endpoint per node, as kubectl users expect', async () => {
    const service = await cluster.client.resource<Service>(SERVICES).get('kube-system', 'kube-dns');
    expect(service.spec?.clusterIP).toBe('10.96.0.10');
    const endpoints = await waitFor(
      () => cluster.client.resource<Endpoints>(ENDPOINTS).get('kube-system', 'kube-dns'),
      (found) => found.subsets?.[0]?.addresses?.length === cluster.nodes.length,
      60_000,
      'kube-dns endpoints of every node',
    );
    expect(endpoints.subsets![0]!.addresses!.map((address) => address.ip).sort()).toEqual(
      [...nodeIPs.values()].sort(),
    );
    const slices = await cluster.client
      .resource<EndpointSlice>(ENDPOINT_SLICES)
      .list('kube-system', { labelSelector: 'kubernetes.io/service-name=kube-dns' });
    expect(slices.items).toHaveLength(1);
    expect(slices.items[0]!.endpoints.map((endpoint) => endpoint.nodeName).sort()).toEqual(
      [...cluster.nodes].sort(),
    );
    const table = await cluster.kubectl(['get', 'svc,endpoints,endpointslices', '-n', 'kube-system']);
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      /service\/kube-dns\s+ClusterIP\s+10\.96\.0\.10\s+<none>\s+53\/UDP,53\/TCP,9153\/TCP/,
    );
    expect(table.stdout).toMatch(/endpoints\/kube-dns\s+\S*:53/);
    expect(table.stdout).toMatch(/endpointslice\.discovery\.k8s\.io\/kube-dns\s+IPv4\s+53,53,9153/);
  }, 120_000);

  it('answers nslookup from a pod: services, headless, SRV, pods, hostnames, ExternalName, upstream, NXDOMAIN', async () => {
    const [node0, node1] = cluster.nodes as [string, string];
    const services = cluster.client.resource<Service>(SERVICES);
    await services.create({
      metadata: { name: 'web', namespace: 'default' },
      spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    });
    await services.create({
      metadata: { name: 'db', namespace: 'default' },
      spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ name: 'http', port: 8080 }] },
    });
    await services.create({
      metadata: { name: 'ext', namespace: 'default' },
      spec: { type: 'ExternalName', externalName: node1 },
    });
    await cluster.pods.create(httpd(node0, 'web-0', { app: 'web' }));
    await cluster.pods.create(httpd(node0, 'db-0', { app: 'db' }, { hostname: 'db-0', subdomain: 'db' }));
    await cluster.pods.create(httpd(node1, 'db-1', { app: 'db' }, { hostname: 'db-1', subdomain: 'db' }));
    const ready = (name: string) =>
      waitForPod(cluster, name, (pod) => isRunning(pod) && isReady(pod), 120_000);
    const [, db0, db1] = await Promise.all([ready('web-0'), ready('db-0'), ready('db-1')]);
    const webIP = (await services.get('default', 'web')).spec!.clusterIP!;
    const db0IP = db0.status!.podIP!;
    const db1IP = db1.status!.podIP!;
    // The headless service's slice must list both pods (with hostnames) before the questions.
    await waitFor(
      () =>
        cluster.client
          .resource<EndpointSlice>(ENDPOINT_SLICES)
          .list('default', { labelSelector: 'kubernetes.io/service-name=db' }),
      (list) =>
        list.items.flatMap((slice) => slice.endpoints).filter((endpoint) => endpoint.hostname).length === 2,
      60_000,
      'db endpoints with hostnames',
    );
    const dns = nodeIPs.get(node0)!;
    const answers = await lookups(node0, 'dns-client', [
      ['service', `web.default.svc.cluster.local ${dns}`],
      ['headless', `db.default.svc.cluster.local ${dns}`],
      ['srv', `-type=srv _http._tcp.web.default.svc.cluster.local ${dns}`],
      ['pod', `${db1IP.replaceAll('.', '-')}.default.pod.cluster.local ${dns}`],
      ['hostname', `db-0.db.default.svc.cluster.local ${dns}`],
      ['externalname', `ext.default.svc.cluster.local ${dns}`],
      ['upstream', `${node1}. ${dns}`],
      ['missing', `missing.default.svc.cluster.local ${dns}`],
      ['reverse', `${webIP} ${dns}`],
    ]);
    const node1IP = nodeIPs.get(node1)!;
    expect(answers.get('service')).toMatch(
      new RegExp(`Name:\\s+web\\.default\\.svc\\.cluster\\.local\\s+Address:\\s+${webIP}\\b`),
    );
    expect(answers.get('service')).toContain('rc=0');
    expect(answers.get('headless')).toContain(`Address: ${db0IP}`);
    expect(answers.get('headless')).toContain(`Address: ${db1IP}`);
    expect(answers.get('srv')).toMatch(
      /_http\._tcp\.web\.default\.svc\.cluster\.local\s+service = 0 100 80 web\.default\.svc\.cluster\.local/,
    );
    expect(answers.get('pod')).toContain(`Address: ${db1IP}`);
    expect(answers.get('hostname')).toMatch(
      new RegExp(`Name:\\s+db-0\\.db\\.default\\.svc\\.cluster\\.local\\s+Address:\\s+${db0IP}\\b`),
    );
    expect(answers.get('hostname')).not.toContain(db1IP);
    expect(answers.get('externalname')).toContain(`canonical name = ${node1}`);
    expect(answers.get('externalname')).toContain(`Address: ${node1IP}`);
    expect(answers.get('upstream')).toContain(`Address: ${node1IP}`);
    expect(answers.get('missing')).toContain("can't find missing.default.svc.cluster.local: NXDOMAIN");
    expect(answers.get('missing')).toMatch(/rc=[1-9]/);
    expect(answers.get('reverse')).toContain('name = web.default.svc.cluster.local');
    // CoreDNS's metrics on the service's metrics port count them (the host reaches node addresses on Linux).
    const metrics = await (await fetch(`http://${dns}:9153/metrics`)).text();
    expect(metrics).toMatch(
      /coredns_dns_responses_total\{server="dns:\/\/[\d.]+:53",zone=".",view="",rcode="NXDOMAIN",plugin="kubernetes"\} [1-9]/,
    );
    expect(metrics).toMatch(/coredns_dns_responses_total\{[^}]*plugin="forward"\} [1-9]/);
  }, 300_000);

  // kube-proxy's rules for 10.96.0.10 (internalTrafficPolicy Local → the pod's own node).
  it('answers through the kube-dns ClusterIP, as pods with dnsPolicy ClusterFirst ask', async () => {
    const [, node1] = cluster.nodes as [string, string];
    // busybox's nslookup walks the search path only for names without a dot; the short name
    // shows the pod's resolv.conf at work (search default.svc.cluster.local …, 10.96.0.10).
    const answers = await lookups(node1, 'dns-clusterip-client', [
      ['short', 'web'],
      ['fqdn', 'web.default.svc.cluster.local 10.96.0.10'],
      ['missing', 'missing.default.svc.cluster.local'],
    ]);
    const webIP = (await cluster.client.resource<Service>(SERVICES).get('default', 'web')).spec!.clusterIP!;
    for (const label of ['short', 'fqdn']) {
      expect(answers.get(label)).toContain('Server:\t\t10.96.0.10');
      expect(answers.get(label)).toMatch(
        new RegExp(`Name:\\s+web\\.default\\.svc\\.cluster\\.local\\s+Address:\\s+${webIP}\\b`),
      );
    }
    expect(answers.get('missing')).toContain('NXDOMAIN');
  }, 300_000);
});
