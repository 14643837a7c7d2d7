import { lstat, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  createVolumeManager,
  type Mounter,
  VolumeSetUpError,
} from '../../../src/agent/kubelet/volumes/index.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { tempDir } from '../../support/temp.js';
import { FakeClient } from './fake-client.js';

class FakeMounter implements Mounter {
  readonly mounted = new Map<string, bigint | undefined>();
  async mountTmpfs(dir: string, sizeBytes?: bigint) {
    this.mounted.set(dir, sizeBytes);
  }
  async unmount(dir: string) {
    this.mounted.delete(dir);
  }
  async mountPointsUnder(dir: string) {
    return [...this.mounted.keys()]
      .filter((p) => p === dir || p.startsWith(`${dir}/`))
      .sort((a, b) => b.length - a.length);
  }
}

function setup() {
  const root = tempDir();
  const client = new FakeClient();
  client.put('nodes', '', 'node-1', { status: { allocatable: { cpu: '2', memory: '1Gi' } } } as never);
  client.put('configmaps', 'shop', 'settings', { data: { 'app.conf': 'mode=fast\n' } } as never);
  client.put('configmaps', 'shop', 'kube-root-ca.crt', { data: { 'ca.crt': 'CA PEM' } } as never);
  client.put('secrets', 'shop', 'creds', {
    data: { password: Buffer.from('hunter2').toString('base64') },
  } as never);
  client.put('serviceaccounts', 'shop', 'default', {} as never);
  const mounter = new FakeMounter();
  const manager = createVolumeManager({
    client,
    nodeName: 'node-1',
    rootDir: root,
    mounter,
    resyncSeconds: 0,
  });
  return { root, client, mounter, manager };
}

function podWith(spec: Partial<NonNullable<Pod['spec']>>, uid = 'pod-uid'): Pod {
  return {
    metadata: { name: 'web', namespace: 'shop', uid, labels: { app: 'web' } },
    spec: { serviceAccountName: 'default', nodeName: 'node-1', containers: [], ...spec },
  };
}

const kubeApiAccess = {
  name: 'kube-api-access-abcde',
  projected: {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      {
        downwardAPI: {
          items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }],
        },
      },
    ],
  },
};

describe('the volume manager', () => {
  it('sets up every kind of volume and returns each container its mounts', async () => {
    const { root, client, mounter, manager } = setup();
    const hostDir = tempDir();
    const pod = podWith({
      volumes: [
        { name: 'settings', configMap: { name: 'settings' } },
        { name: 'creds', secret: { secretName: 'creds', defaultMode: 0o400 } },
        {
          name: 'info',
          downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] },
        },
        kubeApiAccess,
        { name: 'scratch', emptyDir: {} },
        { name: 'cache', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
        { name: 'host', hostPath: { path: join(hostDir, 'data'), type: 'DirectoryOrCreate' } },
      ],
      initContainers: [{ name: 'init', image: 'x', volumeMounts: [{ name: 'scratch', mountPath: '/work' }] }],
      containers: [
        {
          name: 'main',
          image: 'x',
          volumeMounts: [
            { name: 'settings', mountPath: '/etc/app' },
            { name: 'creds', mountPath: '/secrets', readOnly: false },
            { name: 'info', mountPath: '/info' },
            {
              name: kubeApiAccess.name,
              mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
              readOnly: true,
            },
            { name: 'scratch', mountPath: '/scratch', mountPropagation: 'HostToContainer' },
            { name: 'cache', mountPath: '/cache' },
            { name: 'host', mountPath: '/host', readOnly: true },
          ],
        },
      ],
    });
    const mounts = await manager.setUp(pod);
    const volumes = join(root, 'pods/pod-uid/volumes');
    expect(mounts.get('init')).toEqual([
      { containerPath: '/work', hostPath: join(volumes, 'kubernetes.io~empty-dir/scratch'), readOnly: false },
    ]);
    expect(mounts.get('main')).toEqual([
      {
        containerPath: '/etc/app',
        hostPath: join(volumes, 'kubernetes.io~configmap/settings'),
        readOnly: true,
      },
      { containerPath: '/secrets', hostPath: join(volumes, 'kubernetes.io~secret/creds'), readOnly: true },
      { containerPath: '/info', hostPath: join(volumes, 'kubernetes.io~downward-api/info'), readOnly: true },
      {
        containerPath: '/var/run/secrets/kubernetes.io/serviceaccount',
        hostPath: join(volumes, `kubernetes.io~projected/${kubeApiAccess.name}`),
        readOnly: true,
      },
      {
        containerPath: '/scratch',
        hostPath: join(volumes, 'kubernetes.io~empty-dir/scratch'),
        readOnly: false,
        propagation: 'host-to-container',
      },
      { containerPath: '/cache', hostPath: join(volumes, 'kubernetes.io~empty-dir/cache'), readOnly: false },
      { containerPath: '/host', hostPath: join(hostDir, 'data'), readOnly: true },
    ]);
    expect(await readFile(join(volumes, 'kubernetes.io~configmap/settings/app.conf'), 'utf8')).toBe(
      'mode=fast\n',
    );
    const password = join(volumes, 'kubernetes.io~secret/creds/password');
    expect(await readFile(password, 'utf8')).toBe('hunter2');
    expect((await stat(password)).mode & 0o777).toBe(0o400);
    expect(await readFile(join(volumes, 'kubernetes.io~downward-api/info/labels'), 'utf8')).toBe('app="web"');
    const access = join(volumes, `kubernetes.io~projected/${kubeApiAccess.name}`);
    expect(await readFile(join(access, 'token'), 'utf8')).toBe('token-1');
    expect(await readFile(join(access, 'ca.crt'), 'utf8')).toBe('CA PEM');
    expect(await readFile(join(access, 'namespace'), 'utf8')).toBe('shop');
    expect((await stat(join(access, 'token'))).mode & 0o777).toBe(0o644);
    expect(client.tokenRequests[0]).toMatchObject({
      namespace: 'shop',
      name: 'default',
      body: {
        spec: {
          audiences: [],
          expirationSeconds: 3607,
          boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: 'web', uid: 'pod-uid' },
        },
      },
    });
    expect((await stat(join(volumes, 'kubernetes.io~empty-dir/scratch'))).mode & 0o777).toBe(0o777);
    expect((await stat(join(hostDir, 'data'))).isDirectory()).toBe(true);
    // Memory-backed: the emptyDir at its sizeLimit, secrets and projected volumes at node allocatable.
    expect(mounter.mounted.get(join(volumes, 'kubernetes.io~empty-dir/cache'))).toBe(64n * 1024n * 1024n);
    expect(mounter.mounted.get(join(volumes, 'kubernetes.io~secret/creds'))).toBe(1024n ** 3n);
    expect(mounter.mounted.has(access)).toBe(true);
    expect(mounter.mounted.has(join(volumes, 'kubernetes.io~configmap/settings'))).toBe(false);

    await manager.tearDown('pod-uid');
    expect(mounter.mounted.size).toBe(0);
    await expect(lstat(join(root, 'pods/pod-uid'))).rejects.toThrow();
  });

  it('reports a missing configMap or secret as the kubelet does, and allows optional ones', async () => {
    const { manager } = setup();
    const failing = podWith({
      volumes: [
        { name: 'ok', emptyDir: {} },
        { name: 'cfg', configMap: { name: 'absent' } },
        { name: 'sec', secret: { secretName: 'absent' } },
      ],
    });
    const error = await manager.setUp(failing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VolumeSetUpError);
    expect(error).toMatchObject({
      reason: 'FailedMount',
      message: 'MountVolume.SetUp failed for volume "cfg" : configmap "absent" not found',
    });
    const secretError = await manager
      .setUp(podWith({ volumes: [{ name: 'sec', secret: { secretName: 'absent' } }] }, 'other'))
      .catch((e: unknown) => e);
    expect(secretError).toMatchObject({
      message: 'MountVolume.SetUp failed for volume "sec" : secret "absent" not found',
    });
    const projected = await manager
      .setUp(
        podWith(
          {
            volumes: [
              {
                name: 'p',
                projected: { sources: [{ configMap: { name: 'gone' } }, { secret: { name: 'gone-too' } }] },
              },
            ],
          },
          'third',
        ),
      )
      .catch((e: unknown) => e);
    expect(projected).toMatchObject({
      message:
        'MountVolume.SetUp failed for volume "p" : [configmap "gone" not found, secret "gone-too" not found]',
    });
    const optional = podWith(
      {
        volumes: [
          { name: 'cfg', configMap: { name: 'absent', optional: true } },
          { name: 'sec', secret: { secretName: 'absent', optional: true } },
        ],
        containers: [{ name: 'main', image: 'x', volumeMounts: [{ name: 'cfg', mountPath: '/c' }] }],
      },
      'fourth',
    );
    expect((await manager.setUp(optional)).get('main')).toHaveLength(1);
  });

  it('propagates configMap updates through ..data on the next set-up', async () => {
    const { root, client, manager } = setup();
    const pod = podWith({ volumes: [{ name: 'settings', configMap: { name: 'settings' } }] });
    await manager.setUp(pod);
    const dir = join(root, 'pods/pod-uid/volumes/kubernetes.io~configmap/settings');
    const before = await readlink(join(dir, '..data'));
    await manager.setUp(pod);
    expect(await readlink(join(dir, '..data'))).toBe(before);
    client.put('configmaps', 'shop', 'settings', {
      data: { 'app.conf': 'mode=slow\n', extra: 'e' },
    } as never);
    await manager.setUp(pod);
    expect(await readlink(join(dir, '..data'))).not.toBe(before);
    expect(await readFile(join(dir, 'app.conf'), 'utf8')).toBe('mode=slow\n');
    expect(await readFile(join(dir, 'extra'), 'utf8')).toBe('e');
  });

  it('resyncs API-backed volumes on its own', async () => {
    const root = tempDir();
    const client = new FakeClient();
    client.put('configmaps', 'shop', 'settings', { data: { a: '1' } } as never);
    const manager = createVolumeManager({
      client,
      nodeName: 'node-1',
      rootDir: root,
      mounter: new FakeMounter(),
      resyncSeconds: 0.05,
    });
    await manager.setUp(podWith({ volumes: [{ name: 's', configMap: { name: 'settings' } }] }));
    client.put('configmaps', 'shop', 'settings', { data: { a: '2' } } as never);
    const file = join(root, 'pods/pod-uid/volumes/kubernetes.io~configmap/s/a');
    await expect.poll(() => readFile(file, 'utf8'), { timeout: 2000 }).toBe('2');
    await manager.tearDown('pod-uid');
  });

  it('reuses a service-account token until 80 % of its lifetime has passed', async () => {
    const { client, manager } = setup();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const pod = podWith({ volumes: [kubeApiAccess] });
      await manager.setUp(pod);
      await manager.setUp(pod);
      expect(client.tokenRequests).toHaveLength(1);
      vi.setSystemTime(Date.now() + 3607 * 1000 * 0.5);
      await manager.setUp(pod);
      expect(client.tokenRequests).toHaveLength(1);
      vi.setSystemTime(Date.now() + 3607 * 1000 * 0.35);
      await manager.setUp(pod);
      expect(client.tokenRequests).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('resolves subPath and subPathExpr inside the volume, creating what is missing', async () => {
    const { root, manager } = setup();
    const pod = podWith({
      volumes: [
        { name: 'data', emptyDir: {} },
        { name: 'settings', configMap: { name: 'settings' } },
      ],
      containers: [
        {
          name: 'main',
          image: 'x',
          env: [
            { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'DIR', value: 'logs-$(POD)' },
          ],
          volumeMounts: [
            { name: 'data', mountPath: '/a', subPath: 'a/b' },
            { name: 'data', mountPath: '/logs', subPathExpr: '$(DIR)' },
            { name: 'settings', mountPath: '/etc/app.conf', subPath: 'app.conf' },
          ],
        },
      ],
    });
    const mounts = (await manager.setUp(pod)).get('main')!;
    const volumes = join(root, 'pods/pod-uid/volumes');
    expect(mounts[0]!.hostPath).toBe(join(volumes, 'kubernetes.io~empty-dir/data/a/b'));
    expect((await stat(mounts[0]!.hostPath)).isDirectory()).toBe(true);
    expect(mounts[1]!.hostPath).toBe(join(volumes, 'kubernetes.io~empty-dir/data/logs-web'));
    expect(mounts[2]!.hostPath).toMatch(/kubernetes\.io~configmap\/settings\/\.\.\d{4}_.*\/app\.conf$/);
    expect(await readFile(mounts[2]!.hostPath, 'utf8')).toBe('mode=fast\n');
  });

  it('refuses subPaths that leave the volume, as container configuration errors', async () => {
    const { root, manager } = setup();
    const base = podWith({ volumes: [{ name: 'data', emptyDir: {} }] });
    await manager.setUp(base);
    const data = join(root, 'pods/pod-uid/volumes/kubernetes.io~empty-dir/data');
    await symlink('/etc', join(data, 'escape'));
    await writeFile(join(data, 'plain'), 'x');
    const attempt = (mount: { subPath?: string; subPathExpr?: string }) =>
      manager
        .setUp({
          ...base,
          spec: {
            ...base.spec!,
            containers: [
              { name: 'c', image: 'x', volumeMounts: [{ name: 'data', mountPath: '/m', ...mount }] },
            ],
          },
        })
        .catch((e: unknown) => e);
    expect(await attempt({ subPath: 'escape' })).toMatchObject({
      reason: 'CreateContainerConfigError',
      containerName: 'c',
      message: 'failed to prepare subPath for volumeMount "data" of container "c"',
    });
    expect(await attempt({ subPath: 'escape/newdir' })).toMatchObject({
      message: 'failed to create subPath directory for volumeMount "data" of container "c"',
    });
    expect(await attempt({ subPath: '/abs' })).toMatchObject({
      message: 'error SubPath `/abs` must not be an absolute path',
    });
    expect(await attempt({ subPath: 'a/../..' })).toMatchObject({
      message: "unable to provision SubPath `a/../..`: must not contain '..'",
    });
    expect(await attempt({ subPathExpr: '$(MISSING)/$(ALSO)' })).toMatchObject({
      reason: 'CreateContainerConfigError',
      message: 'missing value for ALSO, MISSING',
    });
    expect(await attempt({ subPath: 'plain' })).not.toBeInstanceOf(Error);
  });
  it("rewrites downwardAPI files when the pod's labels or annotations change", async () => {
    const { root, manager } = setup();
    const volume = {
      name: 'info',
      downwardAPI: {
        items: [
          { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
          { path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } },
        ],
      },
    };
    const pod = podWith({ volumes: [volume] });
    await manager.setUp(pod);
    const dir = join(root, 'pods/pod-uid/volumes/kubernetes.io~downward-api/info');
    expect(await readFile(join(dir, 'labels'), 'utf8')).toBe('app="web"');
    // A pod not set up is not written.
    manager.podUpdated(podWith({ volumes: [volume] }, 'other-uid'));
    manager.podUpdated({
      ...pod,
      metadata: { ...pod.metadata, labels: { app: 'web', tier: 'front' }, annotations: { note: 'x' } },
    });
    await expect
      .poll(() => readFile(join(dir, 'labels'), 'utf8'), { timeout: 2000 })
      .toBe('app="web"\ntier="front"');
    expect(await readFile(join(dir, 'annotations'), 'utf8')).toBe('note="x"');
    await expect(stat(join(root, 'pods/other-uid'))).rejects.toThrow();
  });

  it('opens API-backed volume directories to every user, files 0644 by default', async () => {
    const { root, manager } = setup();
    await manager.setUp(
      podWith({
        volumes: [
          { name: 'settings', configMap: { name: 'settings' } },
          { name: 'creds', secret: { secretName: 'creds' } },
        ],
      }),
    );
    const volumes = join(root, 'pods/pod-uid/volumes');
    for (const dir of ['kubernetes.io~configmap/settings', 'kubernetes.io~secret/creds']) {
      expect((await stat(join(volumes, dir))).mode & 0o7777).toBe(0o777);
      expect((await stat(join(volumes, dir, '..data'))).mode & 0o7777).toBe(0o755);
    }
    expect((await stat(join(volumes, 'kubernetes.io~configmap/settings/app.conf'))).mode & 0o7777).toBe(
      0o644,
    );
  });
});
