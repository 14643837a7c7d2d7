// The node graph on its own: how pod, volume, attachment and slice changes move access.
import { describe, expect, it } from 'vitest';
import type { PersistentVolume, Pod } from '../../../src/api/types/core-v1.generated.js';
import {
  NodeGraph,
  persistentVolumeKubeletSecrets,
  podSecretNames,
} from '../../../src/apiserver/auth/node/index.js';

function pod(
  name: string,
  node: string,
  spec: Partial<Pod['spec']> = {},
  status: Pod['status'] = {},
  uid = `${name}-uid`,
): Pod {
  return {
    metadata: { name, namespace: 'ns', uid },
    spec: { nodeName: node, containers: [{ name: 'c' }], ...spec },
    status,
  };
}

describe('NodeGraph', () => {
  it('follows a pod through binding, rebinding under a new uid and deletion', () => {
    const graph = new NodeGraph();
    const spec = { imagePullSecrets: [{ name: 's' }] };
    graph.setPod(pod('p', '', spec));
    expect(graph.reaches('a', 'secret', 'ns', 's')).toBe(false);
    graph.setPod(pod('p', 'a', spec));
    expect([graph.reaches('a', 'secret', 'ns', 's'), graph.reaches('a', 'pod', 'ns', 'p')]).toEqual([
      true,
      true,
    ]);
    // Deleted and recreated on another node before the delete was seen: the new pod wins.
    graph.setPod(pod('p', 'b', spec, {}, 'other-uid'));
    expect([graph.reaches('a', 'secret', 'ns', 's'), graph.reaches('b', 'secret', 'ns', 's')]).toEqual([
      false,
      true,
    ]);
    graph.deletePod('ns', 'p');
    expect(graph.reaches('b', 'secret', 'ns', 's')).toBe(false);
    expect(graph.reaches('b', 'pod', 'ns', 'p')).toBe(false);
  });

  it('reads resource claims from the spec, and template claims once the status names them', () => {
    const graph = new NodeGraph();
    const spec = {
      resourceClaims: [
        { name: 'fixed', resourceClaimName: 'shared-gpu' },
        { name: 'mine', resourceClaimTemplateName: 'gpu-template' },
        { name: 'unneeded', resourceClaimTemplateName: 'gpu-template' },
      ],
    };
    graph.setPod(pod('p', 'a', spec));
    expect(graph.reaches('a', 'resourceclaim', 'ns', 'shared-gpu')).toBe(true);
    expect(graph.reaches('a', 'resourceclaim', 'ns', 'p-mine-x1')).toBe(false);
    graph.setPod(
      pod('p', 'a', spec, {
        resourceClaimStatuses: [{ name: 'mine', resourceClaimName: 'p-mine-x1' }, { name: 'unneeded' }],
      }),
    );
    expect(graph.reaches('a', 'resourceclaim', 'ns', 'p-mine-x1')).toBe(true);
  });

  it('gives a mirror pod’s node the pod only', () => {
    const graph = new NodeGraph();
    const mirror = pod('static', 'a', { serviceAccountName: 'sa', imagePullSecrets: [{ name: 's' }] });
    mirror.metadata!.annotations = { 'kubernetes.io/config.mirror': 'hash' };
    graph.setPod(mirror);
    expect(graph.reaches('a', 'pod', 'ns', 'static')).toBe(true);
    expect(graph.reaches('a', 'secret', 'ns', 's')).toBe(false);
    expect(graph.reaches('a', 'serviceaccount', 'ns', 'sa')).toBe(false);
  });

  it('reaches a PV and its mount secrets through a claim a pod on the node uses', () => {
    const graph = new NodeGraph();
    const pv: PersistentVolume = {
      metadata: { name: 'pv' },
      spec: {
        claimRef: { namespace: 'ns', name: 'claim' },
        cephfs: { monitors: ['m'], secretRef: { name: 'ceph' } },
      },
    };
    graph.setPersistentVolume(pv);
    expect(graph.reaches('a', 'pv', '', 'pv')).toBe(false);
    graph.setPod(pod('p', 'a', { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'claim' } }] }));
    // A cephfs secret without a namespace lives in the claim's namespace.
    expect([graph.reaches('a', 'pv', '', 'pv'), graph.reaches('a', 'secret', 'ns', 'ceph')]).toEqual([
      true,
      true,
    ]);
    expect(graph.reaches('b', 'pv', '', 'pv')).toBe(false);
    graph.setPersistentVolume({ ...pv, spec: { ...pv.spec, claimRef: undefined } });
    expect([graph.reaches('a', 'pv', '', 'pv'), graph.reaches('a', 'secret', 'ns', 'ceph')]).toEqual([
      false,
      false,
    ]);
  });

  it('records attachments and slices by node, and forgets everything on clear', () => {
    const graph = new NodeGraph();
    graph.setVolumeAttachment('va', 'a');
    graph.setResourceSlice('slice', 'b');
    expect([
      graph.reaches('a', 'volumeattachment', '', 'va'),
      graph.reaches('b', 'resourceslice', '', 'slice'),
    ]).toEqual([true, true]);
    graph.setVolumeAttachment('va', 'b');
    expect(graph.reaches('a', 'volumeattachment', '', 'va')).toBe(false);
    graph.setPod(pod('p', 'a', { imagePullSecrets: [{ name: 's' }] }));
    graph.clear();
    expect([
      graph.reaches('b', 'volumeattachment', '', 'va'),
      graph.reaches('a', 'secret', 'ns', 's'),
    ]).toEqual([false, false]);
  });
});

describe('references', () => {
  it('finds secrets in ephemeral containers and every kind of volume', () => {
    expect(
      podSecretNames({
        containers: [{ name: 'c', envFrom: [{ secretRef: { name: 'env-from' } }] }],
        ephemeralContainers: [
          {
            name: 'debug',
            env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'debug-secret', key: 'k' } } }],
          },
        ],
        volumes: [
          { name: 'a', azureFile: { secretName: 'azure', shareName: 's' } },
          { name: 'r', rbd: { image: 'i', monitors: ['m'], secretRef: { name: 'rbd' } } },
          { name: 'i', iscsi: { iqn: 'q', lun: 0, targetPortal: 't', secretRef: { name: 'iscsi' } } },
          { name: 'f', flexVolume: { driver: 'd', secretRef: { name: 'flex' } } },
        ],
      }),
    ).toEqual(['env-from', 'debug-secret', 'azure', 'rbd', 'iscsi', 'flex']);
  });

  it('takes only the CSI secrets the kubelet uses from a PV', () => {
    expect(
      persistentVolumeKubeletSecrets({
        spec: {
          claimRef: { namespace: 'ns', name: 'c' },
          csi: {
            driver: 'd',
            volumeHandle: 'h',
            controllerPublishSecretRef: { name: 'controller', namespace: 'ns' },
            controllerExpandSecretRef: { name: 'expand-controller', namespace: 'ns' },
            nodeStageSecretRef: { name: 'stage', namespace: 'ns' },
            nodePublishSecretRef: { name: 'publish', namespace: 'other' },
            nodeExpandSecretRef: { name: 'expand', namespace: 'ns' },
          },
        },
      }),
    ).toEqual([
      { namespace: 'other', name: 'publish' },
      { namespace: 'ns', name: 'stage' },
      { namespace: 'ns', name: 'expand' },
    ]);
  });
});
