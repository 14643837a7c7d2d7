// `kubectl exec`, `attach`, `port-forward` and `cp` on a real node. kubectl 1.33 speaks
// WebSockets (exec/attach as v5.channel.k8s.io, translated to SPDY in the apiserver; port
// forwarding as SPDY tunnelled in a WebSocket) and must not fall back, which the apiserver's
// pod stream counters show; kubectl 1.28 speaks SPDY, joined to the kubelet's /exec, /attach or
// /portForward and on to containerd's streaming server. Output, stderr kept apart, stdin piped
// in, exit codes, a terminal resized in a tmux pane, two ports with 50 connections moving
// 100 MiB, cp of 50 MiB and of a directory both ways, @kubernetes/client-node's Exec, Attach and
// PortForward, the older WebSocket protocols, and what a vanished client leaves behind.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Attach, Exec, KubeConfig, PortForward } from '@kubernetes/client-node';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { tkube } from '../../support/cli.js';
import { eventually } from '../../support/control-plane.js';
import {
  BUSYBOX,
  buildBusyboxImage,
  isRunning,
  type KubeletCluster,
  podOn,
  startKubeletCluster,
  waitForPod,
} from '../kubelet/pods-support.js';
import {
  kubectl128,
  podStreamsOpen,
  podStreamsStarted,
  processesInNode,
  sha256,
  TmuxPane,
  type Transport,
} from './exec-support.js';

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
  // Two ports serving the same 2 MiB of random bytes: 50 downloads move 100 MiB.
  await cluster.pods.create(
    podOn(cluster.nodes[0]!, 'bulk', {
      containers: [
        {
          name: 'main',
          image: BUSYBOX,
          command: [
            'sh',
            '-c',
            'busybox dd if=/dev/urandom of=/tmp/blob bs=1048576 count=2 && httpd -p 8080 -h /tmp && httpd -f -p 8081 -h /tmp',
          ],
        },
      ],
    }),
  );
  await cluster.pods.create(
    podOn(cluster.nodes[0]!, 'done', {
      restartPolicy: 'Never',
      containers: [{ name: 'main', image: BUSYBOX, command: ['true'] }],
    }),
  );
  await waitForPod(cluster, 'bulk', isRunning, 120_000);
  await waitForPod(cluster, 'done', (pod) => pod.status?.phase === 'Succeeded', 120_000);
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

/** The apiserver's /metrics text. */
async function metrics(): Promise<string> {
  return (await cluster.kubectl(['get', '--raw', '/metrics'])).stdout;
}

/** Runs `action` and expects one more pod stream of `subresource` over `transport`. */
async function expectTransport(subresource: string, transport: Transport, action: () => Promise<void>) {
  const before = podStreamsStarted(await metrics(), subresource, transport);
  await action();
  expect(podStreamsStarted(await metrics(), subresource, transport)).toBeGreaterThan(before);
}

describe.each([
  ['kubectl 1.33', 'kubectl', 'websocket-v5'],
  ['kubectl 1.28', kubectl128(), 'spdy'],
] as const)('%s exec', (_, binary, transport) => {
  it(`runs the command over ${transport}: stdout and stderr apart, the exit code`, async () => {
    await expectTransport('exec', transport, async () => {
      const hello = await kubectlWith(binary, ['exec', 'shell', '--', 'echo', 'hello']);
      expect(hello, hello.stderr).toMatchObject({ exitCode: 0, stdout: 'hello' });
    });
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
  ['kubectl 1.33', 'kubectl', 'reader-0', 'websocket-v5'],
  ['kubectl 1.28', kubectl128(), 'reader-1', 'spdy'],
] as const)('%s attach', (_, binary, reader, transport) => {
  it(`streams the running container's output over ${transport}`, async () => {
    await expectTransport('attach', transport, async () => {
      // attach runs until stopped: the output of a few seconds is enough.
      const attached = await kubectlWith(binary, ['attach', 'talker'], undefined, 4_000);
      expect(attached.stdout).toMatch(/tick \d+\ntick \d+/);
    });
  });

  it('sends stdin to the container', async () => {
    const attached = await kubectlWith(binary, ['attach', '-i', reader], 'hello\n', 4_000);
    expect(attached.stdout).toContain('got hello');
  });
});

describe.each([
  ['kubectl 1.33', 'kubectl', 18_431, 'websocket-spdy-tunnel'],
  ['kubectl 1.28', kubectl128(), 18_432, 'spdy'],
] as const)('%s port-forward', (_, binary, localPort, transport) => {
  it(`forwards local connections to the pod's port over ${transport}, many at once`, async () => {
    const before = podStreamsStarted(await metrics(), 'portforward', transport);
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
      expect(podStreamsStarted(await metrics(), 'portforward', transport)).toBe(before + 1);
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

/** Starts `kubectl port-forward` and waits until it forwards every one of `ports` (wrapped: the process is a thenable). */
async function portForward(binary: string, target: string, ports: readonly string[]) {
  const forward = execa(binary, ['--context', `tkube-${cluster.name}`, 'port-forward', target, ...ports], {
    env: { KUBECONFIG: join(cluster.home, '..', 'kubeconfig') },
    reject: false,
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    forward.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (ports.every((p) => output.includes(`127.0.0.1:${p.split(':')[0]} ->`))) resolve();
    });
    void forward.then((result) => reject(new Error(`port-forward ended: ${result.stderr}`)));
  });
  return { forward };
}

/** GET on a connection of its own; the body's checksum and length. */
function download(port: number, path: string): Promise<{ sum: string; length: number }> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ sum: sha256(body), length: body.length });
      });
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe.each([
  ['kubectl 1.33', 'kubectl', [18_441, 18_442]],
  ['kubectl 1.28', kubectl128(), [18_443, 18_444]],
] as const)('%s port-forward, in bulk', (_, binary, [first, second]) => {
  it('forwards two ports: 50 parallel connections move 100 MiB, every byte checked', async () => {
    const remote = await kubectlWith(binary, ['exec', 'bulk', '--', 'busybox', 'sha256sum', '/tmp/blob']);
    const expected = remote.stdout.split(/\s+/)[0];
    expect(expected, remote.stderr).toMatch(/^[0-9a-f]{64}$/);
    const { forward } = await portForward(binary, 'pod/bulk', [`${first}:8080`, `${second}:8081`]);
    try {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => download(i % 2 === 0 ? first : second, '/blob')),
      );
      expect(results.reduce((sum, r) => sum + r.length, 0)).toBe(100 * 1024 * 1024);
      expect(new Set(results.map((r) => r.sum))).toEqual(new Set([expected]));
    } finally {
      forward.kill();
      await forward;
    }
  }, 180_000);
});

describe.each([
  ['kubectl 1.33', 'kubectl', 'ex-tmux-133'],
  ['kubectl 1.28', kubectl128(), 'ex-tmux-128'],
] as const)('%s exec -it', (_, binary, socket) => {
  it('runs a shell in a terminal that follows a resize of its tmux pane', async () => {
    const kubeconfig = join(cluster.home, '..', 'kubeconfig');
    const pane = await TmuxPane.start(
      socket,
      `${binary} --context tkube-${cluster.name} exec -it shell -- sh`,
      { KUBECONFIG: kubeconfig },
      100,
      30,
    );
    try {
      await eventually(async () => ((await pane.screen()).includes('#') ? true : undefined), 20_000, 200);
      // Typed again until it shows: keys sent while the shell sets up its line editing can be
      // discarded (a loaded CI machine saw the first command lost).
      await eventually(
        async () => {
          if ((await pane.screen()).includes('30 100')) return true;
          await pane.type('busybox stty size');
          return undefined;
        },
        20_000,
        1_000,
      );
      await pane.resize(120, 40);
      // The resize reaches the container's terminal asynchronously: ask until it shows.
      await eventually(
        async () => {
          await pane.type('busybox stty size');
          return (await pane.screen()).includes('40 120') ? true : undefined;
        },
        10_000,
        500,
      );
      await pane.type('exit');
    } finally {
      await pane.stop();
    }
  }, 60_000);
});

describe.each([
  ['kubectl 1.33', 'kubectl', '133'],
  ['kubectl 1.28', kubectl128(), '128'],
] as const)('%s cp, in bulk', (_, binary, tag) => {
  it('copies a 50 MiB file and a directory into the container and back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tkube-cp-bulk-'));
    const big = Buffer.alloc(50 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4) big.writeUInt32LE((i * 2654435761) >>> 0, i);
    writeFileSync(join(dir, 'big.bin'), big);
    mkdirSync(join(dir, 'tree', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'tree', 'a.txt'), `a ${tag}\n`);
    writeFileSync(join(dir, 'tree', 'sub', 'b.txt'), `b ${tag}\n`);
    const into = await kubectlWith(
      binary,
      ['cp', join(dir, 'big.bin'), `shell:/tmp/big-${tag}.bin`],
      undefined,
      120_000,
    );
    expect(into.exitCode, into.stderr).toBe(0);
    const remote = await kubectlWith(binary, [
      'exec',
      'shell',
      '--',
      'busybox',
      'sha256sum',
      `/tmp/big-${tag}.bin`,
    ]);
    expect(remote.stdout.split(/\s+/)[0]).toBe(sha256(big));
    const back = await kubectlWith(
      binary,
      ['cp', `shell:/tmp/big-${tag}.bin`, join(dir, 'big-back.bin')],
      undefined,
      120_000,
    );
    expect(back.exitCode, back.stderr).toBe(0);
    expect(sha256(readFileSync(join(dir, 'big-back.bin')))).toBe(sha256(big));
    const treeInto = await kubectlWith(binary, ['cp', join(dir, 'tree'), `shell:/tmp/tree-${tag}`]);
    expect(treeInto.exitCode, treeInto.stderr).toBe(0);
    const listed = await kubectlWith(binary, [
      'exec',
      'shell',
      '--',
      'cat',
      `/tmp/tree-${tag}/a.txt`,
      `/tmp/tree-${tag}/sub/b.txt`,
    ]);
    expect(listed.stdout).toBe(`a ${tag}\nb ${tag}`);
    const treeBack = await kubectlWith(binary, ['cp', `shell:/tmp/tree-${tag}`, join(dir, 'tree-back')]);
    expect(treeBack.exitCode, treeBack.stderr).toBe(0);
    expect(readFileSync(join(dir, 'tree-back', 'sub', 'b.txt'), 'utf8')).toBe(`b ${tag}\n`);
    expect(readFileSync(join(dir, 'tree-back', 'a.txt'), 'utf8')).toBe(`a ${tag}\n`);
  }, 300_000);
});

describe('@kubernetes/client-node', () => {
  const kubeConfig = () => {
    const config = new KubeConfig();
    config.loadFromFile(join(cluster.home, '..', 'kubeconfig'));
    config.setCurrentContext(`tkube-${cluster.name}`);
    return config;
  };

  it('Exec: v5 WebSocket, stdin closed, stdout and stderr apart, the exit status', async () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const stdin = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    let protocol = '';
    const status = await new Promise<unknown>((resolve, reject) => {
      new Exec(kubeConfig())
        .exec(
          'default',
          'shell',
          'main',
          ['sh', '-c', 'cat; echo E >&2; exit 2'],
          stdout,
          stderr,
          stdin,
          false,
          resolve,
        )
        .then((ws) => {
          protocol = ws.protocol;
        }, reject);
      stdin.end('piped\n');
    });
    expect(protocol).toBe('v5.channel.k8s.io');
    expect({ out, err }).toEqual({ out: 'piped\n', err: 'E\n' });
    expect(status).toMatchObject({
      status: 'Failure',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '2' }] },
    });
  });

  it("Attach: the running container's output", async () => {
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const ws = await new Attach(kubeConfig()).attach('default', 'talker', 'main', stdout, null, null, false);
    await eventually(async () => (/tick \d+\ntick \d+/.test(out) ? true : undefined), 10_000, 100);
    ws.close();
  });

  it("PortForward: a local connection reaches the pod's port", async () => {
    const forward = new PortForward(kubeConfig());
    const server = createServer((socket) => {
      void forward.portForward('default', 'web', [8080], socket, null, socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      expect(await (await fetch(`http://127.0.0.1:${port}/index.html`)).text()).toBe('served\n');
    } finally {
      server.close();
    }
  });
});

/** A WebSocket exec with `protocols`; every message as `<channel>:<text>` (base64 decoded), or the HTTP refusal. */
async function webSocketExec(protocols: string[], command: string, pod = 'shell'): Promise<string[]> {
  const config = new KubeConfig();
  config.loadFromFile(join(cluster.home, '..', 'kubeconfig'));
  config.setCurrentContext(`tkube-${cluster.name}`);
  const options: { ca?: Buffer; cert?: Buffer; key?: Buffer } = {};
  await config.applyToHTTPSOptions(options);
  const query = new URLSearchParams({ stdout: 'true', stderr: 'true' });
  for (const word of ['sh', '-c', command]) query.append('command', word);
  const url = `${config.getCurrentCluster()!.server.replace(/^https/, 'wss')}/api/v1/namespaces/default/pods/${pod}/exec?${query}`;
  const got: string[] = [];
  await new Promise<void>((resolve) => {
    const ws = new WebSocket(url, protocols, { ca: options.ca, cert: options.cert, key: options.key });
    const base64 = protocols[0]!.includes('base64');
    ws.on('message', (data: Buffer) => {
      const text = base64
        ? `${data.toString()[0]}:${Buffer.from(data.toString().slice(1), 'base64')}`
        : `${data[0]}:${data.subarray(1)}`;
      if (!text.endsWith(':')) got.push(text);
    });
    ws.on('unexpected-response', (_request, response) => {
      got.push(`HTTP ${response.statusCode}`);
      resolve();
    });
    ws.on('close', () => resolve());
    ws.on('error', () => resolve());
  });
  return got;
}

describe('older WebSocket protocols, passed on to the node', () => {
  it.each(['channel.k8s.io', 'base64.channel.k8s.io', 'v4.channel.k8s.io', 'v4.base64.channel.k8s.io'])(
    '%s: stdout, stderr and the error channel',
    async (protocol) => {
      const got = await webSocketExec([protocol], 'echo hi; echo e >&2; exit 5');
      // stdout and stderr are separate streams: their order is not kept.
      expect(got.slice(0, 2).sort()).toEqual(['1:hi\n', '2:e\n']);
      expect(got[2]).toMatch(/^3:.*exit code 5/);
      if (protocol.startsWith('v4'))
        expect(JSON.parse(got[2]!.slice(2))).toMatchObject({ reason: 'NonZeroExitCode' });
    },
  );
});

describe('bad input', () => {
  it('a client that vanishes mid-stream leaves no process in the node and no stream open', async () => {
    const node = cluster.nodes[0]!;
    const before = await processesInNode(node, 'cat');
    const gone = execa(
      'kubectl',
      ['--context', `tkube-${cluster.name}`, 'exec', '-i', 'shell', '--', 'cat'],
      {
        env: { KUBECONFIG: join(cluster.home, '..', 'kubeconfig') },
        reject: false,
      },
    );
    gone.stdin?.write('still here\n');
    await eventually(
      async () => ((await processesInNode(node, 'cat')) > before ? true : undefined),
      20_000,
      200,
    );
    gone.kill('SIGKILL');
    await gone;
    await eventually(
      async () => ((await processesInNode(node, 'cat')) === before ? true : undefined),
      20_000,
      200,
    );
    await eventually(async () => (podStreamsOpen(await metrics()) === 0 ? true : undefined), 20_000, 200);
  });

  it("a stopped pod: kubectl refuses it, a v5 WebSocket gets the kubelet's error as a Status", async () => {
    const refused = await kubectlWith('kubectl', ['exec', 'done', '--', 'true']);
    expect(refused.stderr).toContain(
      'cannot exec into a container in a completed pod; current phase is Succeeded',
    );
    const got = await webSocketExec(['v5.channel.k8s.io'], 'true', 'done');
    expect(got).toHaveLength(1);
    expect(JSON.parse(got[0]!.slice(2))).toMatchObject({
      status: 'Failure',
      reason: 'InternalError',
      message: 'Internal error occurred: unable to upgrade connection: container not found ("main")',
    });
  });

  it('a port-forward client killed mid-download leaves no stream open and no server process behind', async () => {
    const node = cluster.nodes[0]!;
    const before = await processesInNode(node, 'httpd');
    const { forward } = await portForward('kubectl', 'pod/bulk', ['18461:8080']);
    const download = new Promise<void>((resolve) => {
      const outgoing = request(
        { host: '127.0.0.1', port: 18461, path: '/blob', agent: false },
        (response) => {
          response.once('data', () => forward.kill('SIGKILL'));
          response.on('error', () => resolve());
          response.on('close', () => resolve());
        },
      );
      outgoing.on('error', () => resolve());
      outgoing.end();
    });
    await download;
    await forward;
    await eventually(async () => (podStreamsOpen(await metrics()) === 0 ? true : undefined), 20_000, 200);
    await eventually(
      async () => ((await processesInNode(node, 'httpd')) === before ? true : undefined),
      20_000,
      200,
    );
  });

  it("a port nobody listens on: the runtime's error, and the forward ends", async () => {
    const { forward } = await portForward('kubectl', 'pod/web', ['18451:9999']);
    const refused = await fetch('http://127.0.0.1:18451/').catch((error: Error) => error);
    expect(refused).toBeInstanceOf(Error);
    const result = await forward;
    expect(result.stderr).toContain('error forwarding port 9999 to pod');
    expect(result.stderr).toContain('connect: connection refused');
  });
});

describe.each([
  ['kubectl 1.33', 'kubectl', '133'],
  ['kubectl 1.28', kubectl128(), '128'],
] as const)('%s debug', (_, binary, tag) => {
  it('adds an ephemeral container the kubelet starts, with its status, and attaches to it', async () => {
    const name = `debugger-${tag}`;
    const added = await kubectlWith(binary, [
      'debug',
      'shell',
      `--image=${BUSYBOX}`,
      '--image-pull-policy=IfNotPresent',
      '-c',
      name,
      '-i',
      '--attach=false',
      '--',
      'sh',
      '-c',
      'echo ready; while read line; do echo "debugged $line"; done; sleep 3600',
    ]);
    expect(added.exitCode, added.stderr).toBe(0);
    await eventually(
      async () => {
        const pod = await cluster.pods.get('default', 'shell');
        const status = pod.status?.ephemeralContainerStatuses?.find((s) => s.name === name);
        return status?.state?.running ? true : undefined;
      },
      60_000,
      250,
    );
    // stdin stays open until the answer shows: without stdinOnce the runtime ends an attach
    // when its stdin closes, maybe before the container's answer was streamed.
    const attach = execa(
      binary,
      ['--context', `tkube-${cluster.name}`, 'attach', '-i', 'shell', '-c', name],
      {
        env: { KUBECONFIG: join(cluster.home, '..', 'kubeconfig') },
        reject: false,
      },
    );
    let output = '';
    attach.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    try {
      attach.stdin?.write('hello\n');
      await eventually(async () => (output.includes('debugged hello') ? true : undefined), 20_000, 100);
    } finally {
      attach.kill();
      await attach;
    }
    const logs = await kubectlWith(binary, ['logs', 'shell', '-c', name]);
    expect(logs.stdout).toContain('ready');
  }, 90_000);
});

describe('pods/log over a WebSocket', () => {
  it.each([
    ['binary.k8s.io', (data: Buffer) => data.toString()],
    ['base64.binary.k8s.io', (data: Buffer) => Buffer.from(data.toString(), 'base64').toString()],
  ])('%s: the log as messages, as the conformance spec reads it', async (protocol, decode) => {
    const config = new KubeConfig();
    config.loadFromFile(join(cluster.home, '..', 'kubeconfig'));
    config.setCurrentContext(`tkube-${cluster.name}`);
    const tls: { ca?: Buffer; cert?: Buffer; key?: Buffer } = {};
    await config.applyToHTTPSOptions(tls);
    const url = `${config.getCurrentCluster()!.server.replace(/^https/, 'wss')}/api/v1/namespaces/default/pods/talker/log?limitBytes=200`;
    let text = '';
    let chosen = '';
    await new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(url, [protocol], tls);
      ws.on('open', () => {
        chosen = ws.protocol;
      });
      ws.on('message', (data: Buffer) => {
        text += decode(data);
      });
      ws.on('close', () => resolve());
      ws.on('error', reject);
    });
    expect(chosen).toBe(protocol);
    expect(text).toMatch(/^tick 1\ntick 2\n/);
  });
});
