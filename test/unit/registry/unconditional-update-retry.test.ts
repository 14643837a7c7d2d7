// An update that names no resourceVersion (where the strategy allows it) applies to the object as
// it is when written: a write that lands between its read and its write makes it retry on the new
// version, as upstream's GuaranteedUpdate does, never a 409 (conformance: "ResourceQuota should be
// able to update and delete ResourceQuota", whose update races the quota controller's status).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { named, startTestApi, type TestApi } from '../node-authorizer/support.js';

let t: TestApi;

beforeAll(async () => {
  t = await startTestApi();
}, 30_000);

afterAll(async () => {
  await t?.stop();
});

describe('ResourceStore.guaranteedUpdate without a resourceVersion', () => {
  it('retries on the new version when another write lands in between', async () => {
    const store = t.resources('', 'resourcequotas');
    const quota = { ...named('ResourceQuota', 'default', 'racing'), spec: { hard: { cpu: '1' } } };
    await t.create('', 'resourcequotas', quota);
    // The request body: one object, handed back on every attempt, with no resourceVersion.
    const body = {
      ...named('ResourceQuota', 'default', 'racing'),
      spec: { hard: { cpu: '2' } },
    } as KubeObject;
    let attempts = 0;
    const updated = await store.guaranteedUpdate('default', 'racing', async (current) => {
      attempts++;
      if (attempts === 1) {
        // The quota controller's status write, between this update's read and its write.
        await store.guaranteedUpdate(
          'default',
          'racing',
          () => ({ ...current, status: { hard: { cpu: '1' }, used: { cpu: '0' } } }),
          { subresource: 'status' },
        );
      }
      return body;
    });
    expect(attempts).toBe(2);
    expect((updated.spec as { hard: Record<string, string> }).hard).toEqual({ cpu: '2' });
    const stored = await store.get('default', 'racing');
    expect((stored.spec as { hard: Record<string, string> }).hard).toEqual({ cpu: '2' });
    expect(stored.status).toMatchObject({ used: { cpu: '0' } });
  });

  it('still refuses a stale resourceVersion the request named', async () => {
    const store = t.resources('', 'resourcequotas');
    await t.create('', 'resourcequotas', {
      ...named('ResourceQuota', 'default', 'stale'),
      spec: { hard: { cpu: '1' } },
    });
    const current = await store.get('default', 'stale');
    const stale = { ...current, metadata: { ...current.metadata, resourceVersion: '1' } } as KubeObject;
    await expect(store.guaranteedUpdate('default', 'stale', () => stale)).rejects.toMatchObject({
      code: 409,
    });
  });
});
