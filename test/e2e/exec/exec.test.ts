// `kubectl exec`, `attach`, `port-forward` and `cp` on a real node: the apiserver joins the
// upgraded connection to the kubelet's /exec, /attach or /portForward, the kubelet to containerd's
// streaming server. kubectl 1.33 tries WebSockets first and falls back to SPDY; kubectl 1.28
// speaks SPDY only. Output, stderr kept apart, stdin piped in, exit codes, the kubelet's errors.
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tkube } from '../../support/cli.js';
import {
  BUSYBOX,
  buildBusyboxImage,
  isRunning,
  type KubeletCluster,
  podOn,
  startKubeletCluster,
  waitForPod,
} from '../kubelet/pods-support.js';

/** kubectl.1.28 (SPDY only), installed next to the kubectl on the PATH. */
function kubectl128(): string {
  const dir = (process.env.PATH ?? '').split(delimiter).find((d) => d && existsSync(join(d, 'kubectl')));
  if (!dir) throw new Error('kubectl is not on the PATH');
  return join(dirname(realpathSync(join(dir, 'kubectl'))), 'kubectl.1.28');
}

let cluster: KubeletCluster;
/** The busybox image with tar, under a tag of this suite's own (other suites build the shared one). */
const BUSYBOX_TAR = 'tkube-test/busybox-ex:1';

async function kubectlWith(binary: string, args: string[], input?: string, timeout = 60_000) {
  const result = await execa(binary, ['--context', `tkube-${cluster.name}`, ...args], {
    env: { KUBECONFIG: join(cluster.home, '..', 'kubeconfig') },
    input,
    reject: false,
    timeout,
  });
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  cluster = await startKubeletCluster('ex', 1);
  await buildBusyboxImage(BUSYBOX_TAR);
  const env = { TKUBE_HOME: cluster.home, KUBECONFIG: join(cluster.home, '..', 'kubeconfig') };
  const load = await tkube(['load', 'image', BUSYBOX_TAR, '--name', cluster.name], env);
  if (load.exitCode !== 0) throw new Error(`tkube load image failed: ${load.stderr}`);
  await cluster.pods.create(
    podOn(cluster.nodes[0]!, 'shell', {
      containers: [{ name: 'main', image: BUSYBOX_TAR, command: ['sleep', '3600'] }],
    }),
  );
  await cluster.pods.create(
    podOn(cluster.nodes[0]!, 'inited', {
      initContainers: [{ name: 'setup', image: BUSYBOX, command: ['true'] }],
      containers: [{ name: 'main', image: BUSYBOX, command: ['sleep', '3600'] }],
    }),
  );
  await cluster.pods.create(
    podOn(cluster.nodes[0]!, 'talker', {
      containers: [
        {
          name: 'main',
          image: BUSYBOX,
          command: ['sh', '-c', 'i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.3; done'],
        },
      ],
    }),
  );
  // One reader per kubectl: closing an attach's stdin ends a stdinOnce container's input.
  for (const reader of ['reader-0', 'reader-1']) {
    await cluster.pods.create(
      podOn(cluster.nodes[0]!, reader, {
        containers: [
          {
            name: 'main',
            image: BUSYBOX,
            stdin: true,
            stdinOnce: true,
            command: ['sh', '-c', 'while read line; do echo "got $line"; done; sleep 3600'],
          },
        ],
      }),
    );
  }
  await cluster.pods.create(
    podOn(cluster.nodes[0]!, 'web', {
      containers: [
        {
          name: 'main',
          image: BUSYBOX,
          command: ['sh', '-c', 'echo served > /tmp/index.html; httpd -f -p 8080 -h /tmp'],
        },
      ],
    }),
  );
  await waitForPod(cluster, 'web', isRunning, 120_000);
  await waitForPod(cluster, 'talker', isRunning, 120_000);
  await waitForPod(cluster, 'reader-0', isRunning, 120_000);
  await waitForPod(cluster, 'reader-1', isRunning, 120_000);
  await waitForPod(cluster, 'shell', isRunning, 120_000);
  await waitForPod(cluster, 'inited', isRunning, 120_000);
}, 300_000);

afterAll(async () => {
  await cluster?.down();
}, 120_000);

describe.each([
  ['kubectl 1.33', 'kubectl'],
  ['kubectl 1.28', kubectl128()],
])('%s exec', (_, binary) => {
  it('runs the command: stdout and stderr apart, the exit code', async () => {
    const hello = await kubectlWith(binary, ['exec', 'shell', '--', 'echo', 'hello']);
    expect(hello, hello.stderr).toMatchObject({ exitCode: 0, stdout: 'hello' });
    const failing = await kubectlWith(binary, [
      'exec',
      'shell',
      '--',
      'sh',
      '-c',
      'echo out; echo err >&2; exit 3',
    ]);
    expect(failing.exitCode).toBe(3);
    expect(failing.stdout).toBe('out');
    expect(failing.stderr).toContain('err');
    expect(failing.stderr).toContain('command terminated with exit code 3');
  });

  it("reports the kubelet's error for a container that is not running", async () => {
    const done = await kubectlWith(binary, ['exec', 'inited', '-c', 'setup', '--', 'true']);
    expect(done.exitCode).not.toBe(0);
    expect(done.stderr).toContain('container not found ("setup")');
  });

  it('pipes stdin in, and ends when it closes', async () => {
    const piped = await kubectlWith(binary, ['exec', '-i', 'shell', '--', 'cat'], 'line one\nline two\n');
    expect(piped, piped.stderr).toMatchObject({ exitCode: 0, stdout: 'line one\nline two' });
  });
});

describe.each([
  ['kubectl 1.33', 'kubectl', 'reader-0'],
  ['kubectl 1.28', kubectl128(), 'reader-1'],
])('%s attach', (_, binary, reader) => {
  it("streams the running container's output", async () => {
    // attach runs until stopped: the output of a few seconds is enough.
    const attached = await kubectlWith(binary, ['attach', 'talker'], undefined, 4_000);
    expect(attached.stdout).toMatch(/tick \d+\ntick \d+/);
  });

  it('sends stdin to the container', async () => {
    const attached = await kubectlWith(binary, ['attach', '-i', reader], 'hello\n', 4_000);
    expect(attached.stdout).toContain('got hello');
  });
});

describe.each([
  ['kubectl 1.33', 'kubectl', 18_431],
  ['kubectl 1.28', kubectl128(), 18_432],
])('%s port-forward', (_, binary, localPort) => {
  it("forwards local connections to the pod's port, many at once", async () => {
    const forward = execa(
      binary,
      ['--context', `tkube-${cluster.name}`, 'port-forward', 'pod/web', `${localPort}:8080`],
      {
        env: { KUBECONFIG: join(cluster.home, '..', 'kubeconfig') },
        reject: false,
      },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        forward.stdout?.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('Forwarding from')) resolve();
        });
        void forward.then((result) => reject(new Error(`port-forward ended: ${result.stderr}`)));
      });
      const bodies = await Promise.all(
        Array.from({ length: 10 }, async () =>
          (await fetch(`http://127.0.0.1:${localPort}/index.html`)).text(),
        ),
      );
      expect(bodies).toEqual(Array.from({ length: 10 }, () => 'served\n'));
    } finally {
      forward.kill();
      await forward;
    }
  });
});

describe.each([
  ['kubectl 1.33', 'kubectl'],
  ['kubectl 1.28', kubectl128()],
])('%s cp', (version, binary) => {
  it('copies a file into the container and back (tar over exec)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tkube-cp-'));
    const content = `${version}\n${'x'.repeat(100_000)}\n`;
    writeFileSync(join(dir, 'in.txt'), content);
    const remote = `/tmp/${version.replace(/\W/g, '')}.txt`;
    const into = await kubectlWith(binary, ['cp', join(dir, 'in.txt'), `shell:${remote}`]);
    expect(into.exitCode, into.stderr).toBe(0);
    const read = await kubectlWith(binary, ['exec', 'shell', '--', 'cat', remote]);
    expect(read.stdout).toBe(content.trimEnd());
    const back = await kubectlWith(binary, ['cp', `shell:${remote}`, join(dir, 'out.txt')]);
    expect(back.exitCode, back.stderr).toBe(0);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toBe(content);
  });
});
