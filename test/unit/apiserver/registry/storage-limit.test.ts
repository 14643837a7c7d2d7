// etcd's request limit as ResourceStore applies it (registry/resource-store.ts checkStorageLimit):
// measured on the protobuf encoding kube-apiserver would store, from the object being written
// (not its JSON text, which escapes more): an object whose JSON is over 1.5 MiB but whose
// protobuf is not is stored; one over it in both is refused with etcd's message, on create and update;
// a big create's measure off the event loop (the field manager thread's storedTextEncodedSize) decides
// the same, and when it fails the object is measured here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../src/api/object.js';
import { storedTextEncodedSize } from '../../../../src/apiserver/protobuf/encoded-size.js';
import { ETCD_MAX_REQUEST_BYTES } from '../../../../src/apiserver/registry/storage-limit.js';
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

  it('takes a big create’s measure of a text over the limit in JSON, and measures here when it fails', async () => {
    const templates = api.resources('', 'podtemplates');
    const measured: number[] = [];
    const measureStoredText = async (text: string) => {
      measured.push(text.length);
      return storedTextEncodedSize(text);
    };
    const failing = () => Promise.reject(new Error('the field manager thread exited (code 1)'));
    const quotes = '"'.repeat(1024 * 1024);
    const tooLarge = 'a'.repeat(ETCD_MAX_REQUEST_BYTES);
    await templates.create('default', podTemplate('measured-quotes', quotes), { measureStoredText });
    expect(measured).toHaveLength(1);
    const refused = await rejection(
      templates.create('default', podTemplate('measured-plain', tooLarge), { measureStoredText }),
    );
    expect(refused.message).toBe('etcdserver: request is too large');
    expect(measured).toHaveLength(2);
    // Under the limit in JSON: nothing to measure.
    await templates.create('default', podTemplate('small', 'v'), { measureStoredText });
    expect(measured).toHaveLength(2);
    await templates.create('default', podTemplate('failed-quotes', quotes), { measureStoredText: failing });
    const failedRefusal = await rejection(
      templates.create('default', podTemplate('failed-plain', tooLarge), { measureStoredText: failing }),
    );
    expect(failedRefusal.message).toBe('etcdserver: request is too large');
  }, 30_000);
});
