// The in-cluster path to the apiserver that client-go's rest.InClusterConfig (and so every
// operator) takes, on a one-node `tkube up`: the `kubernetes` service's variables in the pod's
// environment, `kubernetes.default.svc` resolved by cluster DNS to 10.96.0.1, and HTTPS to
// 10.96.0.1:443 carried by the agent's proxy rules to the apiserver's advertised address, its
// certificate verified against the pod's ca.crt for both names, and the pod's service-account
// token accepted. The client is the host's openssl in an image of its own: busybox's built-in
// TLS sends no signature_algorithms extension, which OpenSSL 3 servers (Node's) refuse.
import { realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Endpoints, Pod } from '../../../src/api/types/core-v1.generated.js';
import { ENDPOINTS } from '../../../src/client/resources.js';
import { readEngineMessages } from '../../../src/providers/docker/engine-stream.js';
import { type TarEntry, tarStream } from '../../../src/providers/docker/tar.js';
import { tkube } from '../../support/cli.js';
import { docker } from '../docker/support.js';
import { type KubeletCluster, podOn, startKubeletCluster, waitForPod } from '../kubelet/pods-support.js';

const CLIENT_IMAGE = 'tkube-test/openssl-busybox:1';

/** busybox (the shell) and the host's openssl with the shared libraries ldd names, `docker import`ed. */
async function buildClientImage(): Promise<void> {
  const openssl = (await execa('sh', ['-c', 'command -v openssl'])).stdout.trim();
  const { stdout } = await execa('ldd', [openssl]);
  const libraries = [...stdout.matchAll(/(\/\S+) \(0x/g)].map((match) => match[1]!);
  const files = [
    ['bin/busybox', '/bin/busybox'],
    ['bin/openssl', openssl],
    ...libraries.map((library) => [library.slice(1), library]),
  ] as const;
  const directories = new Set<string>(['tmp']);
  for (const [path] of files) {
    for (let dir = dirname(path); dir !== '.'; dir = dirname(dir)) directories.add(dir);
  }
  const entries: TarEntry[] = [
    ...[...directories].sort().map((path) => ({
      type: 'directory' as const,
      path,
      mode: path === 'tmp' ? 0o1777 : 0o755,
    })),
    ...files.map(([path, source]) => {
      const real = realpathSync(source);
      return { type: 'hostFile' as const, path, mode: 0o755, source: real, size: statSync(real).size };
    }),
    ...['sh', 'cat', 'echo', 'printf', 'nslookup'].map((applet) => ({
      type: 'symlink' as const,
      path: `bin/${applet}`,
      target: 'busybox',
    })),
  ];
  const [repo, tag] = CLIENT_IMAGE.split(':') as [string, string];
  const response = await docker.importImage(tarStream(entries), { repo, tag, changes: ['CMD ["/bin/sh"]'] });
  await readEngineMessages(response, 'importing the openssl client image');
}

let cluster: KubeletCluster;

beforeAll(async () => {
  [cluster] = await Promise.all([startKubeletCluster('ks', 1), buildClientImage()]);
  const load = await tkube(['load', 'image', CLIENT_IMAGE, '--name', cluster.name], {
    TKUBE_HOME: cluster.home,
    HOME: dirname(cluster.home),
    PATH: process.env.PATH ?? '',
  });
  if (load.exitCode !== 0) throw new Error(`tkube load image failed: ${load.stderr}`);
}, 300_000);

afterAll(async () => {
  await cluster?.down();
}, 120_000);

const terminated = (pod: Pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/** Runs each labelled shell step in one pod; each step's output, keyed by its label. */
async function inPod(name: string, steps: readonly (readonly [label: string, command: string])[]) {
  const script = steps.map(([label, command]) => `echo "=== ${label}"; ${command}; echo "rc=$?"`).join('; ');
  await cluster.pods.create(
    podOn(cluster.nodes[0]!, name, {
      restartPolicy: 'Never',
      containers: [{ name: 'client', image: CLIENT_IMAGE, command: ['sh', '-c', script] }],
    }),
  );
  const pod = await waitForPod(cluster, name, terminated, 120_000);
  const logs = await cluster.kubectl(['logs', name]);
  expect(logs.exitCode, logs.stderr).toBe(0);
  expect(pod.status?.phase, logs.stdout).toBe('Succeeded');
  const sections = new Map<string, string>();
  for (const section of logs.stdout.split('=== ').slice(1)) {
    const newline = section.indexOf('\n');
    sections.set(section.slice(0, newline), section.slice(newline + 1));
  }
  return sections;
}

const SERVICE_ACCOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * An HTTP/1.1 request (a printf format and its arguments) over `openssl s_client`, which fails the handshake unless the server's
 * certificate chains to the pod's ca.crt and names `verify` (-verify_hostname or -verify_ip).
 */
function https(address: string, verify: string, request: string, printfArgs = ''): string {
  return (
    `printf '${request}' ${printfArgs} | openssl s_client -quiet -connect ${address} -CAfile ${SERVICE_ACCOUNT}/ca.crt ` +
    `-verify_return_error ${verify} 2>&1`
  );
}

describe('the kubernetes service from a pod', () => {
  it('reaches the apiserver at https://kubernetes.default.svc and $KUBERNETES_SERVICE_HOST, verified and authenticated', async () => {
    const endpoints = await cluster.client.resource<Endpoints>(ENDPOINTS).get('default', 'kubernetes');
    const advertised = endpoints.subsets?.[0]?.addresses?.[0]?.ip;
    expect(advertised).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(advertised).not.toMatch(/^127\./);
    const review = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    const sections = await inPod('kubernetes-client', [
      ['env', 'echo "$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT"'],
      ['dns', 'nslookup kubernetes.default.svc.cluster.local'],
      [
        'version',
        https(
          'kubernetes.default.svc:443',
          '-verify_hostname kubernetes.default.svc',
          'GET /version HTTP/1.1\\r\\nHost: kubernetes.default.svc\\r\\nConnection: close\\r\\n\\r\\n',
        ),
      ],
      [
        'review',
        `TOKEN=$(cat ${SERVICE_ACCOUNT}/token); ` +
          https(
            '$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT',
            '-verify_ip $KUBERNETES_SERVICE_HOST',
            'POST /apis/authentication.k8s.io/v1/selfsubjectreviews HTTP/1.1\\r\\nHost: kubernetes.default.svc\\r\\n' +
              'Authorization: Bearer %s\\r\\nContent-Type: application/json\\r\\n' +
              `Content-Length: ${review.length}\\r\\nConnection: close\\r\\n\\r\\n${review}`,
            '"$TOKEN"',
          ),
      ],
    ]);
    expect(sections.get('env')).toContain('10.96.0.1:443');
    expect(sections.get('dns')).toMatch(
      /Name:\s+kubernetes\.default\.svc\.cluster\.local\s+Address:\s+10\.96\.0\.1\b/,
    );
    const version = sections.get('version');
    expect(version).toContain('HTTP/1.1 200');
    expect(version).toMatch(/"gitVersion":\s*"v1\.33\./);
    expect(version).toContain('rc=0');
    const reviewed = sections.get('review');
    expect(reviewed).toContain('HTTP/1.1 201');
    expect(reviewed).toMatch(/"username":\s*"system:serviceaccount:default:default"/);
    expect(reviewed).toContain('rc=0');
  }, 240_000);
});
