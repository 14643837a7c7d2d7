// An update whose object is deleted while it is being prepared (mutation, admission) answers 404
// NotFound, as upstream's GuaranteedUpdate does when the key is gone, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { StatusError } from '../../../src/apiserver/status.js';
import { named, startTestApi, type TestApi } from '../node-authorizer/support.js';

let t: TestApi;

beforeAll(async () => {
  t = await startTestApi();
}, 30_000);

afterAll(async () => {
  await t?.stop();
});

async function updateOfDeleted(
  resource: string,
  object: KubeObject,
  change: (current: KubeObject) => KubeObject,
  subresource: string,
): Promise<unknown> {
  const store = t.resources('', resource);
  const name = object.metadata?.name ?? '';
  await t.create('', resource, object);
  return store
    .guaranteedUpdate(
      'default',
      name,
      async (current) => {
        await store.delete('default', name, {});
        return change(current);
      },
      { subresource },
    )
    .then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
}

function expectNotFound(error: unknown, text: string): void {
  expect(error).toBeInstanceOf(StatusError);
  expect((error as StatusError).toStatus()).toMatchObject({ code: 404, reason: 'NotFound', message: text });
}

describe('ResourceStore.guaranteedUpdate of an object deleted meanwhile', () => {
  it('answers 404 NotFound for the main resource', async () => {
    const error = await updateOfDeleted(
      'configmaps',
      named('ConfigMap', 'default', 'gone'),
      (current) => ({ ...current, data: { key: 'value' } }),
      '',
    );
    expectNotFound(error, 'configmaps "gone" not found');
  });

  it('answers 404 NotFound for a status write', async () => {
    const quota = { ...named('ResourceQuota', 'default', 'gone'), spec: { hard: { pods: '1' } } };
    const error = await updateOfDeleted(
      'resourcequotas',
      quota,
      (current) => ({ ...current, status: { hard: { pods: '1' }, used: { pods: '0' } } }),
      'status',
    );
    expectNotFound(error, 'resourcequotas "gone" not found');
  });
});
