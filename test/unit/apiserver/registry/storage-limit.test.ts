// etcd's request limit as ResourceStore applies it (registry/resource-store.ts checkStorageLimit):
// measured on the protobuf encoding kube-apiserver would store, from the object being written
// (not its JSON text, which escapes more): an object whose JSON is over 1.5 MiB but whose
// protobuf is not is stored; one over it in both is refused with etcd's message, on create and update.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../src/api/object.js';
import { ETCD_MAX_REQUEST_BYTES } from '../../../../src/apiserver/registry/resource-store.js';
import { rejection, startTestApi, type TestApi } from '../../node-authorizer/support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
}, 60_000);
afterAll(async () => api?.stop());

// A PodTemplate: an env var's value has no size limit of its own (a ConfigMap's data has 1 MiB).
const podTemplate = (name: string, value: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PodTemplate',
  metadata: { name, namespace: 'default' },
  template: { spec: { containers: [{ name: 'c', image: 'busybox', env: [{ name: 'V', value }] }] } },
});

describe('the storage request limit', () => {
  it('measures the protobuf encoding: escaped JSON over 1.5 MiB is stored, plain bytes over it are refused', async () => {
    const templates = api.resources('', 'podtemplates');
    // Each quote takes two bytes in JSON and one in protobuf.
    const quotes = '"'.repeat(1024 * 1024);
    expect(JSON.stringify(quotes).length).toBeGreaterThan(ETCD_MAX_REQUEST_BYTES);
    const stored = await templates.create('default', podTemplate('quotes', quotes));
    expect(stored.metadata?.resourceVersion).toBeDefined();
    const tooLarge = 'a'.repeat(ETCD_MAX_REQUEST_BYTES);
    const created = await rejection(templates.create('default', podTemplate('plain', tooLarge)));
    expect(created.code).toBe(500);
    expect(created.message).toBe('etcdserver: request is too large');
    const updated = await rejection(templates.update('default', 'quotes', podTemplate('quotes', tooLarge)));
    expect(updated.message).toBe('etcdserver: request is too large');
  }, 30_000);
});
