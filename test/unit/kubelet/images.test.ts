import { describe, expect, it } from 'vitest';
import type { CriClient } from '../../../src/agent/kubelet/cri/client.js';
import { CriError } from '../../../src/agent/kubelet/cri/client.js';
import type { Image } from '../../../src/agent/kubelet/cri/types.js';
import {
  ImageManager,
  shouldPullImage,
  withDefaultTag,
} from '../../../src/agent/kubelet/images/image-manager.js';
import { statusPatch } from '../../../src/agent/kubelet/status/status-manager.js';
import type { ObjectReference } from '../../../src/api/types/core-v1.generated.js';
import { container, pod } from './fixtures.js';

const image = (id: string): Image => ({
  id,
  repoTags: [],
  repoDigests: [],
  size: 1234,
  uid: null,
  username: '',
  pinned: false,
});

function fakeRuntime(present: Set<string>, pullError?: string): CriClient & { pulls: number } {
  const runtime = {
    pulls: 0,
    imageStatus: async ({ image: name }: { image: string }) =>
      present.has(name) ? image(`sha256:${name}`) : null,
    pullImage: async ({ image: name }: { image: string }) => {
      runtime.pulls++;
      if (pullError) throw new CriError('PullImage', 2, pullError);
      present.add(name);
      return name;
    },
  };
  return runtime as unknown as CriClient & { pulls: number };
}

function manager(runtime: CriClient, now: () => number) {
  const events: string[] = [];
  const record = (_ref: ObjectReference, type: string, reason: string, message: string) =>
    events.push(`${type} ${reason} ${message}`);
  return { images: new ImageManager(runtime, record, { clusterName: 'dev', now }), events };
}

const sandboxConfig = { metadata: { name: 'web', uid: 'u', namespace: 'default', attempt: 0 } };
const ref = { kind: 'Pod', name: 'web' };

describe('image references and policies', () => {
  it('adds the latest tag only without tag or digest, and rejects invalid names', () => {
    expect(withDefaultTag('busybox')).toBe('busybox:latest');
    expect(withDefaultTag('registry.local:5000/team/app')).toBe('registry.local:5000/team/app:latest');
    expect(withDefaultTag('busybox:1.36')).toBe('busybox:1.36');
    expect(withDefaultTag(`busybox@sha256:${'a'.repeat(64)}`)).toBe(`busybox@sha256:${'a'.repeat(64)}`);
    expect(withDefaultTag('Busybox')).toBeUndefined();
  });

  it('pulls by policy', () => {
    expect(shouldPullImage('Always', true)).toBe(true);
    expect(shouldPullImage('IfNotPresent', true)).toBe(false);
    expect(shouldPullImage('IfNotPresent', false)).toBe(true);
    expect(shouldPullImage('Never', false)).toBe(false);
  });
});

describe('the image manager', () => {
  it('uses a present image without pulling', async () => {
    const runtime = fakeRuntime(new Set(['tkube-test/busybox:1']));
    const { images, events } = manager(runtime, Date.now);
    const result = await images.ensureImageExists(
      pod(),
      container('app', { imagePullPolicy: 'IfNotPresent' }),
      ref,
      sandboxConfig,
    );
    expect(result).toMatchObject({ ok: true, image: { id: 'sha256:tkube-test/busybox:1' } });
    expect(runtime.pulls).toBe(0);
    expect(events).toEqual([
      'Normal Pulled Container image "tkube-test/busybox:1" already present on machine',
    ]);
  });

  it('refuses to pull with policy Never', async () => {
    const { images, events } = manager(fakeRuntime(new Set()), Date.now);
    const result = await images.ensureImageExists(
      pod(),
      container('app', { imagePullPolicy: 'Never' }),
      ref,
      sandboxConfig,
    );
    expect(result).toEqual({
      ok: false,
      reason: 'ErrImageNeverPull',
      message:
        'Container image "tkube-test/busybox:1" is not present with pull policy of Never; if the image is on your machine, load it into the cluster with: tkube load image tkube-test/busybox:1 --name dev',
    });
    expect(events).toEqual([
      'Warning ErrImageNeverPull Container image "tkube-test/busybox:1" is not present with pull policy of Never',
    ]);
  });

  it('reports ErrImagePull with the load hint, then backs off 10 s, then 20 s', async () => {
    let now = 1_000_000;
    const runtime = fakeRuntime(new Set(), 'failed to resolve reference "docker.io/tkube-test/busybox:1"');
    const { images, events } = manager(runtime, () => now);
    const app = container('app', { imagePullPolicy: 'IfNotPresent' });
    const first = await images.ensureImageExists(pod(), app, ref, sandboxConfig);
    expect(first).toMatchObject({ ok: false, reason: 'ErrImagePull' });
    expect(first.ok ? '' : first.message).toContain('tkube load image tkube-test/busybox:1 --name dev');
    expect(events).toEqual([
      'Normal Pulling Pulling image "tkube-test/busybox:1"',
      'Warning Failed Failed to pull image "tkube-test/busybox:1": rpc error: code = Unknown desc = failed to resolve reference "docker.io/tkube-test/busybox:1"',
    ]);
    now += 5_000;
    const backingOff = await images.ensureImageExists(pod(), app, ref, sandboxConfig);
    expect(backingOff).toMatchObject({ ok: false, reason: 'ImagePullBackOff' });
    expect(backingOff.ok ? '' : backingOff.message).toMatch(
      /^Back-off pulling image "tkube-test\/busybox:1": ErrImagePull: rpc error: .* tkube load image tkube-test\/busybox:1 --name dev$/,
    );
    expect(runtime.pulls).toBe(1);
    expect(images.backoffEnd(pod(), 'tkube-test/busybox:1')).toBe(1_010_000);
    now += 5_000;
    expect(await images.ensureImageExists(pod(), app, ref, sandboxConfig)).toMatchObject({
      reason: 'ErrImagePull',
    });
    expect(runtime.pulls).toBe(2);
    expect(images.backoffEnd(pod(), 'tkube-test/busybox:1')).toBe(1_030_000);
  });

  it('pulls a missing image and reports the time and size', async () => {
    const runtime = fakeRuntime(new Set());
    const { images, events } = manager(runtime, Date.now);
    const result = await images.ensureImageExists(
      pod(),
      container('app', { image: 'nginx' }),
      ref,
      sandboxConfig,
    );
    expect(result.ok).toBe(true);
    expect(events.at(-1)).toMatch(
      /^Normal Pulled Successfully pulled image "nginx" in \d+m?s \(\d+m?s including waiting\)\. Image size: 1234 bytes\.$/,
    );
  });
});

describe('status patches', () => {
  it('patch only kubelet conditions (clearing reason and message), replace IP lists, and carry the uid', () => {
    const patch = statusPatch('u1', {
      phase: 'Running',
      conditions: [
        { type: 'example.com/gate', status: 'True' },
        { type: 'Ready', status: 'True', lastTransitionTime: 't' },
      ],
      podIP: '10.244.1.5',
      podIPs: [{ ip: '10.244.1.5' }],
      containerStatuses: [],
    });
    expect(patch).toMatchObject({
      metadata: { uid: 'u1' },
      status: {
        phase: 'Running',
        reason: null,
        message: null,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            lastTransitionTime: 't',
            reason: null,
            message: null,
            lastProbeTime: null,
          },
        ],
        podIPs: [{ $patch: 'replace' }, { ip: '10.244.1.5' }],
        hostIPs: null,
        initContainerStatuses: null,
      },
    });
  });
});
