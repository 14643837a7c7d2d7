import { describe, expect, it } from 'vitest';
import {
  CONFIG_HASH_ANNOTATION,
  isMirrorPodOf,
  ManifestError,
  mirrorPodFor,
  staticPodFromManifest,
} from '../../../src/agent/kubelet/static/manifest.js';
import { MIRROR_POD_ANNOTATION } from '../../../src/api/mirror-pods.js';

const MANIFEST = `
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: { app: web }
spec:
  containers:
  - name: app
    image: tkube-test/busybox:1
    command: [sleep, "3600"]
`;

describe('static pod manifests', () => {
  it('names the pod after its node, defaults it and links it to its hash', () => {
    const pod = staticPodFromManifest(MANIFEST, '/etc/kubernetes/manifests/web.yaml', 'Demo-Node-1');
    expect(pod.metadata?.name).toBe('web-demo-node-1');
    expect(pod.metadata?.namespace).toBe('default');
    expect(pod.metadata?.uid).toMatch(/^[0-9a-f]{32}$/);
    expect(pod.metadata?.annotations?.[CONFIG_HASH_ANNOTATION]).toBe(pod.metadata?.uid);
    expect(pod.metadata?.labels).toEqual({ app: 'web' });
    expect(pod.spec?.nodeName).toBe('Demo-Node-1');
    expect(pod.spec?.tolerations).toEqual([{ operator: 'Exists', effect: 'NoExecute' }]);
    // The apiserver's defaults, as upstream's decoder applies them.
    expect(pod.spec?.restartPolicy).toBe('Always');
    expect(pod.spec?.dnsPolicy).toBe('ClusterFirst');
    expect(pod.spec?.terminationGracePeriodSeconds).toBe(30);
    expect(pod.spec?.containers[0]?.imagePullPolicy).toBe('IfNotPresent');
    expect(pod.spec?.containers[0]?.terminationMessagePath).toBe('/dev/termination-log');
    expect(pod.status).toEqual({ phase: 'Pending', qosClass: 'BestEffort' });
  });

  it('gives the same manifest the same uid, and another file, node or content another one', () => {
    const uid = (text: string, file: string, node: string) =>
      staticPodFromManifest(text, file, node).metadata?.uid;
    const base = uid(MANIFEST, '/m/web.yaml', 'n1');
    expect(uid(MANIFEST, '/m/web.yaml', 'n1')).toBe(base);
    expect(uid(MANIFEST, '/m/other.yaml', 'n1')).not.toBe(base);
    expect(uid(MANIFEST, '/m/web.yaml', 'n2')).not.toBe(base);
    expect(uid(MANIFEST.replace('3600', '3601'), '/m/web.yaml', 'n1')).not.toBe(base);
  });

  it('reads JSON, keeps a namespace and adds no second NoExecute toleration', () => {
    const pod = staticPodFromManifest(
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'db', namespace: 'kube-system' },
        spec: {
          containers: [{ name: 'db', image: 'db:1' }],
          tolerations: [
            { operator: 'Exists', effect: 'NoExecute' },
            { key: 'a', operator: 'Exists' },
          ],
        },
      }),
      '/m/db.json',
      'n1',
    );
    expect(pod.metadata?.namespace).toBe('kube-system');
    expect(pod.spec?.tolerations).toHaveLength(2);
  });

  it('refuses what is not one named pod', () => {
    expect(() => staticPodFromManifest('', '/m/a', 'n')).toThrow(new ManifestError('file was empty'));
    expect(() => staticPodFromManifest('kind: Pod\napiVersion: v1\nspec: {}\n', '/m/a', 'n')).toThrow(
      'invalid pod: name is needed for the pod',
    );
    expect(() =>
      staticPodFromManifest('kind: Service\napiVersion: v1\nmetadata: {name: a}\n', '/m/a', 'n'),
    ).toThrow(/expected kind "Pod"/);
    expect(() =>
      staticPodFromManifest('kind: Pod\napiVersion: v1\nmetadata: {name: a}\n', '/m/a', 'n'),
    ).toThrow('spec.containers: Required value');
    expect(() => staticPodFromManifest('kind: [', '/m/a', 'n')).toThrow(/invalid manifest/);
  });

  it('makes a mirror pod owned by the node and recognises it by the hash', () => {
    const pod = staticPodFromManifest(MANIFEST, '/m/web.yaml', 'n1');
    const mirror = mirrorPodFor(pod, { name: 'n1', uid: 'node-uid' });
    expect(mirror.metadata?.uid).toBeUndefined();
    expect(mirror.metadata?.annotations?.[MIRROR_POD_ANNOTATION]).toBe(pod.metadata?.uid);
    expect(mirror.metadata?.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid', controller: true },
    ]);
    expect(mirror.spec).toEqual(pod.spec);
    expect(isMirrorPodOf(mirror, pod)).toBe(true);
    const edited = staticPodFromManifest(MANIFEST.replace('3600', '60'), '/m/web.yaml', 'n1');
    expect(isMirrorPodOf(mirror, edited)).toBe(false);
  });
});
