// The local registry (`tkube up --registry`, issue 27 item 4) on real Docker: a registry shared
// by clusters (--registry-name) and one a cluster owns (--registry), each on its own free port.
// An image pushed with `docker push localhost:<port>/...` runs in a Deployment without being
// loaded into the node; the KEP-1755 ConfigMap names the registry; a port in use or a shared
// registry asked for on another port fails in one line and leaves nothing behind; `tkube down`
// removes an owned registry and keeps a shared one (with its images). The owned cluster comes
// from a kind config (issue 27 item 6): its warning line and an extraPortMappings port answering.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { findFreePort } from '../../../src/cluster/ports.js';
import { repoRoot, tkube } from '../../support/cli.js';
import { docker, sharedNodeImage } from '../docker/support.js';
import { BUSYBOX, buildBusyboxImage, waitFor } from '../kubelet/pods-support.js';
import { backendContainer } from '../network/support.js';

const suffix = Math.random().toString(16).slice(2, 8);
const shared = `rg-shared-${suffix}`;
const owner = `rg-own-${suffix}`;
const sharedRegistry = `rg-registry-${suffix}`;
const ownedRegistry = `${owner}-registry`;
let sharedPort: number;
let ownedPort: number;
/** The owned cluster comes from a kind config publishing its node's port 30080 here. */
let mappedPort: number;
let ownerUp: { exitCode: number; stderr: string };
let dir: string;
let env: Record<string, string>;

async function kubectl(
  cluster: string,
  args: string[],
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const result = await execa('kubectl', ['--context', `tkube-${cluster}`, ...args], {
    env,
    reject: false,
    timeout: 60_000,
  });
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** A Deployment `app` of `image` in `cluster`, rolled out (its node pulled the image). */
async function runsDeployment(cluster: string, image: string): Promise<void> {
  const created = await kubectl(cluster, [
    'create',
    'deployment',
    'app',
    `--image=${image}`,
    '--',
    'sleep',
    '3600',
  ]);
  expect(created.exitCode, created.stderr).toBe(0);
  const rollout = await kubectl(cluster, ['rollout', 'status', 'deployment/app', '--timeout=90s']);
  expect(rollout.exitCode, rollout.stderr).toBe(0);
}

/** `tkube up` given more than tkube()'s minute: two clusters come up at once on a busy machine. */
async function up(args: string[]): Promise<{ exitCode: number; stderr: string }> {
  const result = await execa(process.execPath, [join(repoRoot, 'bin/run.js'), 'up', ...args], {
    env,
    reject: false,
    timeout: 240_000,
  });
  return { exitCode: result.exitCode ?? -1, stderr: result.stderr };
}

async function containerState(name: string): Promise<string | undefined> {
  return docker
    .getContainer(name)
    .inspect()
    .then(
      (info) => info.State.Status,
      () => undefined,
    );
}

/** What Docker holds labelled with a cluster's name: nothing, once a failed `up` is undone. */
async function clusterLeftovers(cluster: string): Promise<string[]> {
  const filters = { label: [`dev.tkube.cluster=${cluster}`] };
  const [containers, networks] = await Promise.all([
    docker.listContainers({ all: true, filters }),
    docker.listNetworks({ filters }),
  ]);
  return [...containers.map((c) => c.Names[0] ?? c.Id), ...networks.map((n) => n.Name)];
}

async function catalog(port: number): Promise<string[]> {
  const response = await fetch(`http://127.0.0.1:${port}/v2/_catalog`, {
    signal: AbortSignal.timeout(5_000),
  });
  return ((await response.json()) as { repositories: string[] }).repositories;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkube-e2e-registry-'));
  env = {
    TKUBE_HOME: join(dir, 'home'),
    KUBECONFIG: join(dir, 'kubeconfig'),
    HOME: dir,
    CI: 'true',
    PATH: process.env.PATH ?? '',
  };
  [sharedPort, ownedPort, mappedPort] = await Promise.all([findFreePort(), findFreePort(), findFreePort()]);
  const kindConfig = join(dir, 'kind.yaml');
  writeFileSync(
    kindConfig,
    [
      'kind: Cluster',
      'apiVersion: kind.x-k8s.io/v1alpha4',
      'featureGates: {InPlacePodVerticalScaling: true}',
      'nodes:',
      '  - role: control-plane',
      '    extraPortMappings:',
      `      - {containerPort: 30080, hostPort: ${mappedPort}, listenAddress: 127.0.0.1}`,
      '',
    ].join('\n'),
  );
  await Promise.all([sharedNodeImage(), buildBusyboxImage()]);
  const [first, second] = await Promise.all([
    up([shared, '--nodes', '1', '--registry-name', sharedRegistry, '--registry-port', `${sharedPort}`]),
    up([owner, '--config', kindConfig, '--registry', '--registry-port', `${ownedPort}`]),
  ]);
  if (first.exitCode !== 0) throw new Error(`tkube up ${shared} failed: ${first.stderr}`);
  if (second.exitCode !== 0) throw new Error(`tkube up ${owner} failed: ${second.stderr}`);
  ownerUp = second;
}, 300_000);

afterAll(async () => {
  for (const cluster of [shared, owner]) await tkube(['down', cluster], env);
  await docker
    .getContainer(sharedRegistry)
    .remove({ force: true, v: true })
    .catch(() => undefined);
  await execa('docker', ['rmi', `localhost:${sharedPort}/app:1`, `localhost:${ownedPort}/web:1`], {
    reject: false,
  });
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('tkube up --registry', () => {
  it('publishes the local-registry-hosting ConfigMap in kube-public (KEP-1755)', async () => {
    for (const [cluster, name, port] of [
      [shared, sharedRegistry, sharedPort],
      [owner, ownedRegistry, ownedPort],
    ] as const) {
      const result = await kubectl(cluster, [
        'get',
        'configmap',
        '-n',
        'kube-public',
        'local-registry-hosting',
        '-o',
        'json',
      ]);
      expect(result.exitCode, result.stderr).toBe(0);
      const data = (JSON.parse(result.stdout) as { data: Record<string, string> }).data;
      expect(parse(data['localRegistryHosting.v1']!)).toEqual({
        host: `localhost:${port}`,
        hostFromContainerRuntime: `${name}:5000`,
        help: 'https://kind.sigs.k8s.io/docs/user/local-registry/',
      });
    }
  }, 120_000);

  it('runs a Deployment of an image pushed to localhost:<port>, pulled by the node from the registry', async () => {
    const image = `localhost:${sharedPort}/app:1`;
    await execa('docker', ['tag', BUSYBOX, image]);
    const push = await execa('docker', ['push', image], { reject: false });
    expect(push.exitCode, push.stderr).toBe(0);
    expect(await catalog(sharedPort)).toContain('app');
    await runsDeployment(shared, image);
    const pods = await kubectl(shared, ['get', 'pods', '-l', 'app=app', '-o', 'json']);
    const [pod] = (
      JSON.parse(pods.stdout) as {
        items: { status: { containerStatuses: { image: string; imageID: string }[] } }[];
      }
    ).items;
    // The digest the registry gave the push: the node pulled it from there.
    const pushed = /digest: (sha256:[0-9a-f]{64})/.exec(push.stdout)?.[1];
    expect(pod!.status.containerStatuses[0]!.imageID).toBe(`${image.replace(/:1$/, '')}@${pushed}`);
  }, 150_000);

  it('takes a kind config as it is: one warning per field not honoured, extraPortMappings published', async () => {
    expect(ownerUp.stderr).toContain(
      `Warning: ${join(dir, 'kind.yaml')}: featureGates: not honoured: tkube serves Kubernetes 1.33 with its default feature gates`,
    );
    const image = `localhost:${ownedPort}/web:1`;
    await execa('docker', ['tag', BUSYBOX, image]);
    const push = await execa('docker', ['push', image], { reject: false });
    expect(push.exitCode, push.stderr).toBe(0);
    const manifest = {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'web', namespace: 'default' },
          spec: {
            selector: { matchLabels: { app: 'web' } },
            template: {
              metadata: { labels: { app: 'web' } },
              spec: { containers: [{ ...backendContainer(), image, imagePullPolicy: 'IfNotPresent' }] },
            },
          },
        },
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'web', namespace: 'default' },
          spec: {
            type: 'NodePort',
            selector: { app: 'web' },
            ports: [{ port: 80, targetPort: 'http', nodePort: 30080 }],
          },
        },
      ],
    };
    const applied = await execa('kubectl', ['--context', `tkube-${owner}`, 'apply', '-f', '-'], {
      env,
      input: JSON.stringify(manifest),
      reject: false,
    });
    expect(applied.exitCode, applied.stderr).toBe(0);
    const rollout = await kubectl(owner, ['rollout', 'status', 'deployment/web', '--timeout=90s']);
    expect(rollout.exitCode, rollout.stderr).toBe(0);
    const answer = await waitFor(
      () =>
        fetch(`http://127.0.0.1:${mappedPort}/`, { signal: AbortSignal.timeout(3_000) }).then((response) =>
          response.text(),
        ),
      (text) => text.startsWith('web-'),
      30_000,
      `an answer on 127.0.0.1:${mappedPort}`,
    );
    expect(answer.trim()).toMatch(/^web-[a-z0-9]+-[a-z0-9]+$/);
  }, 150_000);

  it('refuses a registry port in use in one line, leaving nothing behind', async () => {
    const taken = `rg-taken-${suffix}`;
    const result = await tkube(
      ['up', taken, '--nodes', '1', '--registry', '--registry-port', `${ownedPort}`],
      env,
    );
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([
      `Error: registry port ${ownedPort} is already in use on 127.0.0.1; choose another with --registry-port, or share a running registry with --registry-name`,
    ]);
    expect(await clusterLeftovers(taken)).toEqual([]);
    expect((await tkube(['list'], env)).stdout).not.toContain(taken);
  }, 120_000);

  it('refuses a shared registry asked for on another port, undoing what it had created', async () => {
    const other = `rg-other-${suffix}`;
    const result = await tkube(
      ['up', other, '--nodes', '1', '--registry-name', sharedRegistry, '--registry-port', `${ownedPort + 1}`],
      env,
    );
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain(
      `registry ${sharedRegistry} exists on port ${sharedPort}, not ${ownedPort + 1}; leave out the port to use it`,
    );
    expect(await clusterLeftovers(other)).toEqual([]);
    expect(await containerState(sharedRegistry)).toBe('running');
  }, 120_000);

  it('lets another cluster share the running registry: found by name, its images pulled there too', async () => {
    const reuse = `rg-reuse-${suffix}`;
    const result = await up([reuse, '--nodes', '1', '--registry-name', sharedRegistry]);
    try {
      expect(result.exitCode, result.stderr).toBe(0);
      const hosting = await kubectl(reuse, [
        'get',
        'configmap',
        '-n',
        'kube-public',
        'local-registry-hosting',
        '-o',
        'jsonpath={.data.localRegistryHosting\\.v1}',
      ]);
      expect(hosting.stdout).toContain(`host: "localhost:${sharedPort}"`);
      // The image the first cluster's test pushed, pulled by this cluster's node from the same registry.
      const image = `localhost:${sharedPort}/app:1`;
      await runsDeployment(reuse, image);
    } finally {
      await tkube(['down', reuse], env);
    }
    expect(await clusterLeftovers(reuse)).toEqual([]);
    expect(await containerState(sharedRegistry)).toBe('running');
  }, 300_000);

  it('tkube down removes a registry the cluster owns and keeps a shared one with its images', async () => {
    expect(await containerState(ownedRegistry)).toBe('running');
    expect((await tkube(['down', owner], env)).exitCode).toBe(0);
    expect(await containerState(ownedRegistry)).toBeUndefined();

    expect((await tkube(['down', shared], env)).exitCode).toBe(0);
    expect(await clusterLeftovers(shared)).toEqual([]);
    expect(await containerState(sharedRegistry)).toBe('running');
    expect(
      await waitFor(
        () => catalog(sharedPort),
        (repositories) => repositories.includes('app'),
        10_000,
      ),
    ).toContain('app');
  }, 120_000);
});
