// An object deleted between an update's read and its write (a controller's status update racing
// a DELETE, as in the garbage collector's propagation tests): the update answers 404 NotFound,
// as kube-apiserver's GuaranteedUpdate does, never a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { StatusError } from '../../../src/apiserver/status.js';
import { startTestApi, type TestApi } from '../node-authorizer/support.js';

let t: TestApi;

beforeAll(async () => {
  t = await startTestApi();
});

afterAll(() => t?.stop());

const configMap = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { a: '1' },
});

async function statusOf(work: Promise<unknown>): Promise<StatusError> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(StatusError);
  return error as StatusError;
}

describe('an object deleted while it is being updated', () => {
  it('makes the update a 404 NotFound', async () => {
    await t.create('', 'configmaps', configMap('racing'));
    const configMaps = t.resources('', 'configmaps');
    const error = await statusOf(
      configMaps.guaranteedUpdate('default', 'racing', async (current) => {
        await t.store.delete('/registry/configmaps/default/racing');
        return { ...current, data: { a: '2' } };
      }),
    );
    expect(error.code).toBe(404);
    expect(error.reason).toBe('NotFound');
    expect(error.message).toBe('configmaps "racing" not found');
  });
});
