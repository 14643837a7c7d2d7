import { describe, expect, it } from 'vitest';
import { ApiObjects } from '../../../src/agent/kubelet/volumes/api-objects.js';
import {
  containerResourceValue,
  formatMap,
  podFieldValue,
} from '../../../src/agent/kubelet/volumes/downward-api.js';
import {
  configMapPayload,
  downwardApiPayload,
  secretPayload,
} from '../../../src/agent/kubelet/volumes/payloads.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { FakeClient } from './fake-client.js';

const text = (payload: Map<string, { data: Buffer; mode: number }>) =>
  Object.fromEntries([...payload].map(([path, file]) => [path, [file.data.toString('utf8'), file.mode]]));

const pod: Pod = {
  metadata: {
    name: 'web',
    namespace: 'shop',
    uid: 'uid-1',
    labels: { tier: 'front', app: 'web' },
    annotations: { note: 'say "hi"\n' },
  },
  spec: {
    nodeName: 'node-1',
    containers: [
      { name: 'main', image: 'x', resources: { limits: { cpu: '250m' }, requests: { memory: '64Mi' } } },
    ],
  },
  status: { podIP: '10.244.1.5', hostIP: '10.0.0.2' },
};

function objectsWithNode(allocatable: Record<string, string>): ApiObjects {
  const client = new FakeClient();
  client.put('nodes', '', 'node-1', { status: { allocatable } } as never);
  return new ApiObjects(client, 'node-1');
}

describe('configMap and secret payloads', () => {
  const configMap = {
    data: { 'app.conf': 'x=1', other: 'y' },
    binaryData: { 'blob.bin': Buffer.from([1, 2]).toString('base64') },
  };

  it('projects every key with the default mode when no items are given', () => {
    const payload = configMapPayload(configMap, undefined, 0o644, false);
    expect(text(payload)).toEqual({
      'app.conf': ['x=1', 0o644],
      other: ['y', 0o644],
      'blob.bin': ['\u0001\u0002', 0o644],
    });
  });

  it('projects only the items, at their paths and modes', () => {
    const payload = configMapPayload(
      configMap,
      [
        { key: 'app.conf', path: 'conf/app', mode: 0o400 },
        { key: 'other', path: 'o' },
      ],
      0o640,
      false,
    );
    expect(text(payload)).toEqual({ 'conf/app': ['x=1', 0o400], o: ['y', 0o640] });
  });

  it('fails on a missing key unless optional, in the kubelet words', () => {
    expect(() => configMapPayload(configMap, [{ key: 'nope', path: 'n' }], 0o644, false)).toThrow(
      'configmap references non-existent config key: nope',
    );
    expect(text(configMapPayload(configMap, [{ key: 'nope', path: 'n' }], 0o644, true))).toEqual({});
    expect(() => secretPayload({ data: {} }, [{ key: 'k', path: 'k' }], 0o644, false)).toThrow(
      'references non-existent secret key: k',
    );
  });

  it('decodes secret data', () => {
    const payload = secretPayload(
      { data: { password: Buffer.from('s3cr3t').toString('base64') } },
      undefined,
      0o600,
      false,
    );
    expect(text(payload)).toEqual({ password: ['s3cr3t', 0o600] });
  });
});

describe('the downward API', () => {
  it('formats labels and annotations as sorted key="value" lines with Go quoting', () => {
    expect(formatMap({ tier: 'front', app: 'web' })).toBe('app="web"\ntier="front"');
    expect(podFieldValue(pod, 'metadata.annotations')).toBe('note="say \\"hi\\"\\n"');
  });

  it('reads metadata fields and subscripts, and refuses what volumes may not read', () => {
    expect(podFieldValue(pod, 'metadata.name')).toBe('web');
    expect(podFieldValue(pod, 'metadata.namespace')).toBe('shop');
    expect(podFieldValue(pod, 'metadata.uid')).toBe('uid-1');
    expect(podFieldValue(pod, "metadata.labels['tier']")).toBe('front');
    expect(podFieldValue(pod, "metadata.labels['missing']")).toBe('');
    expect(() => podFieldValue(pod, 'spec.nodeName')).toThrow('unsupported fieldPath: spec.nodeName');
    expect(podFieldValue(pod, 'spec.nodeName', true)).toBe('node-1');
    expect(podFieldValue(pod, 'status.podIP', true)).toBe('10.244.1.5');
    expect(() => podFieldValue(pod, "metadata.name['x']")).toThrow(
      'fieldPath "metadata.name[\'x\']" does not support subscript',
    );
  });

  it('divides resources by the divisor, rounding up, with node allocatable for unset limits', () => {
    const allocatable = { cpu: '2', memory: '4Gi' };
    expect(containerResourceValue({ resource: 'limits.cpu' }, pod, 'main', allocatable)).toBe('1');
    expect(containerResourceValue({ resource: 'limits.cpu', divisor: '1m' }, pod, 'main', allocatable)).toBe(
      '250',
    );
    expect(
      containerResourceValue({ resource: 'requests.memory', divisor: '1Mi' }, pod, 'main', allocatable),
    ).toBe('64');
    expect(
      containerResourceValue({ resource: 'limits.memory', divisor: '1Gi' }, pod, 'main', allocatable),
    ).toBe('4');
    expect(containerResourceValue({ resource: 'requests.cpu' }, pod, 'main', allocatable)).toBe('0');
    expect(() => containerResourceValue({ resource: 'limits.gpu' }, pod, 'main', allocatable)).toThrow(
      'unsupported container resource : limits.gpu',
    );
    expect(() => containerResourceValue({ resource: 'limits.cpu' }, pod, 'other', allocatable)).toThrow(
      'container other not found',
    );
  });

  it('builds a volume payload and reports every bad item at once', async () => {
    const objects = objectsWithNode({ cpu: '4', memory: '8Gi' });
    const payload = await downwardApiPayload(
      [
        { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
        { path: './dir/name', fieldRef: { fieldPath: 'metadata.name' }, mode: 0o600 },
        {
          path: 'mem',
          resourceFieldRef: { containerName: 'main', resource: 'limits.memory', divisor: '1Mi' },
        },
      ],
      pod,
      0o644,
      objects,
    );
    expect(text(payload)).toEqual({
      labels: ['app="web"\ntier="front"', 0o644],
      'dir/name': ['web', 0o600],
      mem: ['8192', 0o644],
    });
    await expect(
      downwardApiPayload(
        [
          { path: 'a', fieldRef: { fieldPath: 'spec.nodeName' } },
          { path: 'b', fieldRef: { fieldPath: 'status.podIP' } },
        ],
        pod,
        0o644,
        objects,
      ),
    ).rejects.toThrow('[unsupported fieldPath: spec.nodeName, unsupported fieldPath: status.podIP]');
  });
});
