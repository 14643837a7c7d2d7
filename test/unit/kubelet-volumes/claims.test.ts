// persistentVolumeClaim and generic ephemeral volumes in the kubelet's volume manager: bound
// claims on hostPath (local-path) and local volumes, readOnly and subPath on them, fsGroup on a
// local volume, and the kubelet's FailedMount texts while a claim cannot be used.
import { chmod, chown, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createVolumeManager, type Mounter } from '../../../src/agent/kubelet/volumes/index.js';
import type {
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  Volume,
} from '../../../src/api/types/core-v1.generated.js';
import { tempDir } from '../../support/temp.js';
import { FakeClient } from './fake-client.js';

const noMounts: Mounter = {
  mountTmpfs: async () => {},
  unmount: async () => {},
  mountPointsUnder: async () => [],
};

function setup() {
  const client = new FakeClient();
  const manager = createVolumeManager({
    client,
    nodeName: 'node-1',
    rootDir: tempDir(),
    mounter: noMounts,
    resyncSeconds: 0,
  });
  return { client, manager };
}

function claim(
  name: string,
  phase: string,
  volumeName = '',
  uid = `uid-${name}`,
  extra: Partial<PersistentVolumeClaim['metadata']> = {},
): PersistentVolumeClaim {
  return {
    metadata: { name, namespace: 'shop', uid, ...extra },
    spec: { volumeName },
    status: { phase },
  };
}

function volume(
  name: string,
  claimUid: string,
  source: Partial<PersistentVolume['spec']>,
  annotations?: Record<string, string>,
): PersistentVolume {
  return {
    metadata: { name, ...(annotations ? { annotations } : {}) },
    spec: { claimRef: { namespace: 'shop', name: 'data', uid: claimUid }, ...source },
  };
}

function podWith(
  volumes: Volume[],
  mounts: { name: string; mountPath: string; subPath?: string; readOnly?: boolean }[] = [],
  fsGroup?: number,
): Pod {
  return {
    metadata: { name: 'web', namespace: 'shop', uid: 'pod-uid' },
    spec: {
      nodeName: 'node-1',
      volumes,
      ...(fsGroup === undefined ? {} : { securityContext: { fsGroup } }),
      containers: [{ name: 'c', image: 'x', volumeMounts: mounts }],
    },
  };
}

const withVolumes = (pod: Pod, volumes: Volume[]): Pod => ({ ...pod, spec: { ...pod.spec!, volumes } });

describe('claim volumes in the kubelet', () => {
  it('mounts a bound local-path claim, creating its directory open to every user', async () => {
    const { client, manager } = setup();
    const dir = join(tempDir(), 'local-path', 'pvc-uid-data');
    client.put('persistentvolumeclaims', 'shop', 'data', claim('data', 'Bound', 'pvc-uid-data'));
    client.put(
      'persistentvolumes',
      '',
      'pvc-uid-data',
      volume(
        'pvc-uid-data',
        'uid-data',
        { hostPath: { path: dir, type: 'DirectoryOrCreate' } },
        {
          'pv.kubernetes.io/provisioned-by': 'tkube.dev/local-path',
        },
      ),
    );
    const pod = withVolumes(podWith([], [{ name: 'data', mountPath: '/data' }]), [
      { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
    ]);
    const mounts = await manager.setUp(pod);
    expect(mounts.get('c')).toEqual([{ containerPath: '/data', hostPath: dir, readOnly: false }]);
    expect((await stat(dir)).mode & 0o777).toBe(0o777);
  });

  it("honours the claim's readOnly and keeps subPaths inside the volume", async () => {
    const { client, manager } = setup();
    const dir = tempDir();
    await symlink('/etc', join(dir, 'escape'));
    client.put('persistentvolumeclaims', 'shop', 'data', claim('data', 'Bound', 'pv-1'));
    client.put('persistentvolumes', '', 'pv-1', volume('pv-1', 'uid-data', { hostPath: { path: dir } }));
    const volumes: Volume[] = [
      { name: 'data', persistentVolumeClaim: { claimName: 'data', readOnly: true } },
    ];
    const mounts = await manager.setUp(
      withVolumes(podWith([], [{ name: 'data', mountPath: '/d', subPath: 'logs' }]), volumes),
    );
    expect(mounts.get('c')).toEqual([{ containerPath: '/d', hostPath: join(dir, 'logs'), readOnly: true }]);
    const escaping = await manager
      .setUp(withVolumes(podWith([], [{ name: 'data', mountPath: '/d', subPath: 'escape' }]), volumes))
      .catch((error: unknown) => error);
    expect(escaping).toMatchObject({
      reason: 'CreateContainerConfigError',
      message: 'failed to prepare subPath for volumeMount "data" of container "c"',
    });
  });

  it('gives a local volume the pod’s fsGroup', async () => {
    const { client, manager } = setup();
    const dir = tempDir();
    client.put('persistentvolumeclaims', 'shop', 'data', claim('data', 'Bound', 'pv-local'));
    client.put('persistentvolumes', '', 'pv-local', volume('pv-local', 'uid-data', { local: { path: dir } }));
    await manager.setUp(
      withVolumes(podWith([], [], 2345), [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }]),
    );
    const info = await stat(dir);
    expect(info.gid).toBe(2345);
    expect(info.mode & 0o2000).toBe(0o2000);
  });

  it('leaves a volume whose root already has the fsGroup alone under fsGroupChangePolicy OnRootMismatch', async () => {
    const { client, manager } = setup();
    const dir = tempDir();
    const file = join(dir, 'file');
    await writeFile(file, 'x');
    await chown(file, 0, 0);
    await chown(dir, 0, 2345);
    await chmod(dir, 0o2775);
    client.put('persistentvolumeclaims', 'shop', 'data', claim('data', 'Bound', 'pv-local'));
    client.put('persistentvolumes', '', 'pv-local', volume('pv-local', 'uid-data', { local: { path: dir } }));
    const pod = withVolumes(podWith([], [], 2345), [
      { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
    ]);
    const withPolicy = (uid: string, fsGroupChangePolicy: string): Pod => ({
      ...pod,
      metadata: { ...pod.metadata, uid },
      spec: { ...pod.spec!, securityContext: { fsGroup: 2345, fsGroupChangePolicy } },
    });
    await manager.setUp(withPolicy('pod-on-root-mismatch', 'OnRootMismatch'));
    expect((await stat(file)).gid).toBe(0);
    // Always (the default) walks the whole volume.
    await manager.setUp(withPolicy('pod-always', 'Always'));
    expect((await stat(file)).gid).toBe(2345);
  });

  const failures: { name: string; put: (client: FakeClient) => void; volume?: Volume; want: string }[] = [
    {
      name: 'a missing claim',
      put: () => {},
      want: 'error processing PVC shop/data: failed to fetch PVC from API server: persistentvolumeclaims "data" not found',
    },
    {
      name: 'an unbound claim',
      put: (client) => client.put('persistentvolumeclaims', 'shop', 'data', claim('data', 'Pending')),
      want: 'error processing PVC shop/data: PVC is not bound',
    },
    {
      name: 'a claim being deleted',
      put: (client) =>
        client.put(
          'persistentvolumeclaims',
          'shop',
          'data',
          claim('data', 'Bound', 'pv-1', 'uid-data', { deletionTimestamp: '2026-01-01T00:00:00Z' }),
        ),
      want: 'error processing PVC shop/data: PVC is being deleted',
    },
    {
      name: 'a volume bound to another claim',
      put: (client) => {
        client.put('persistentvolumeclaims', 'shop', 'data', claim('data', 'Bound', 'pv-1'));
        client.put(
          'persistentvolumes',
          '',
          'pv-1',
          volume('pv-1', 'someone-else', { hostPath: { path: '/tmp' } }),
        );
      },
      want: 'error processing PVC shop/data: found PV object pv-1 but its pv.Spec.ClaimRef.UID someone-else does not point to claim.UID uid-data',
    },
    {
      name: 'an ephemeral claim the pod does not own',
      put: (client) =>
        client.put('persistentvolumeclaims', 'shop', 'web-data', claim('web-data', 'Bound', 'pv-1')),
      volume: { name: 'data', ephemeral: { volumeClaimTemplate: { spec: {} } } },
      want: 'PVC shop/web-data was not created for pod shop/web (pod is not owner)',
    },
  ];
  for (const failure of failures) {
    it(`reports ${failure.name} as FailedMount`, async () => {
      const { client, manager } = setup();
      failure.put(client);
      const error = await manager
        .setUp(
          withVolumes(podWith([]), [
            failure.volume ?? { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
          ]),
        )
        .catch((e: unknown) => e);
      expect(error).toMatchObject({
        reason: 'FailedMount',
        message: `Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[], failed to process volumes=[data]: ${failure.want}`,
      });
    });
  }
});
