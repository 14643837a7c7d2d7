import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticPodFromManifest } from '../../../src/agent/kubelet/static/manifest.js';
import { MirrorPods } from '../../../src/agent/kubelet/static/mirror-pods.js';
import { StatusManager } from '../../../src/agent/kubelet/status/status-manager.js';
import type { Node, Pod } from '../../../src/api/types/core-v1.generated.js';
import { NODES, PODS } from '../../../src/client/resources.js';
import type { Client } from '../../../src/client/types.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

const NODE = 'mirror-node-1';
const manifest = (seconds: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default}\nspec:\n  containers: [{name: app, image: busybox:1, command: [sleep, "${seconds}"]}]\n`;

let cp: InProcessControlPlane;
let kubelet: Client;

beforeAll(async () => {
  cp = await startInProcessControlPlane();
  await cp.admin.resource<Node>(NODES).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: NODE } });
  kubelet = cp.controlPlane.loopbackClient(
    { name: `system:node:${NODE}`, groups: ['system:nodes', 'system:authenticated'] },
    'kubelet',
  );
}, 30_000);
afterAll(async () => {
  await cp?.stop();
});

const pods = () => cp.admin.resource<Pod>(PODS);

describe('mirror pods', () => {
  it('creates the mirror as the node, replaces a stale or deleted one and removes it', async () => {
    const mirrors = new MirrorPods({ client: kubelet, nodeName: NODE, log: () => {} });
    const staticPod = staticPodFromManifest(manifest('3600'), '/m/web.yaml', NODE);
    await mirrors.reconcile(staticPod);
    const mirror = await pods().get('default', `web-${NODE}`);
    expect(mirror.metadata?.annotations?.['kubernetes.io/config.mirror']).toBe(staticPod.metadata?.uid);
    expect(mirror.metadata?.uid).not.toBe(staticPod.metadata?.uid);
    expect(mirror.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Node',
      name: NODE,
      controller: true,
    });
    // No service account, token volume or other reference was added by admission.
    expect(mirror.spec?.serviceAccountName).toBeUndefined();
    expect(mirror.spec?.volumes ?? []).toEqual([]);
    expect(mirrors.mirrorUidOf(staticPod)).toBe(mirror.metadata?.uid);

    // The API's copy being deleted gracefully: the kubelet removes it at once and makes a new one.
    await pods().delete('default', `web-${NODE}`);
    const terminating = await pods().get('default', `web-${NODE}`);
    expect(terminating.metadata?.deletionTimestamp).toBeDefined();
    mirrors.seen(terminating);
    expect(mirrors.mirrorUidOf(staticPod)).toBeNull();
    await mirrors.reconcile(staticPod);
    const again = await pods().get('default', `web-${NODE}`);
    expect(again.metadata?.uid).not.toBe(mirror.metadata?.uid);
    expect(again.metadata?.deletionTimestamp).toBeUndefined();

    // An edited manifest: the old mirror does not match and is replaced.
    const edited = staticPodFromManifest(manifest('60'), '/m/web.yaml', NODE);
    await mirrors.reconcile(edited);
    const replaced = await pods().get('default', `web-${NODE}`);
    expect(replaced.metadata?.annotations?.['kubernetes.io/config.mirror']).toBe(edited.metadata?.uid);
    expect(replaced.spec?.containers[0]?.command).toEqual(['sleep', '60']);

    expect(await mirrors.delete(`default/web-${NODE}`, replaced.metadata?.uid)).toBe(true);
    await expect(pods().get('default', `web-${NODE}`)).rejects.toThrow(/not found/);
  });

  it('writes a static pod status onto its mirror once there is one', async () => {
    const mirrors = new MirrorPods({ client: kubelet, nodeName: NODE, log: () => {} });
    const staticPod = staticPodFromManifest(manifest('7200'), '/m/status.yaml', NODE);
    staticPod.metadata!.name = `status-${NODE}`;
    const statuses = new StatusManager(kubelet, {
      apiUid: () => mirrors.mirrorUidOf(staticPod),
      log: () => {},
    });
    statuses.set(staticPod, { phase: 'Running', podIP: '10.244.0.9', hostIP: '172.30.0.2' });
    await statuses.flushed(staticPod.metadata?.uid ?? '');
    await mirrors.reconcile(staticPod);
    statuses.rewrite(staticPod.metadata?.uid ?? '');
    const mirror = await eventually(async () => {
      const pod = await pods().get('default', `status-${NODE}`);
      return pod.status?.phase === 'Running' ? pod : undefined;
    });
    expect(mirror.status?.podIP).toBe('10.244.0.9');
    statuses.stop();
  });

  it('lets the apiserver refuse what a node may not create', async () => {
    const plain = staticPodFromManifest(manifest('1'), '/m/plain.yaml', NODE);
    const { uid: _uid, ...metadata } = plain.metadata ?? {};
    await expect(kubelet.resource<Pod>(PODS).create({ ...plain, metadata })).rejects.toThrow(
      /can only create mirror pods/,
    );
    const withAccount = staticPodFromManifest(manifest('1'), '/m/sa.yaml', NODE);
    withAccount.metadata!.name = `sa-${NODE}`;
    withAccount.spec!.serviceAccountName = 'default';
    const mirrors = new MirrorPods({ client: kubelet, nodeName: NODE, log: () => {} });
    await expect(mirrors.reconcile(withAccount)).rejects.toThrow(
      /mirror pods may not reference service accounts/,
    );
  });
});
