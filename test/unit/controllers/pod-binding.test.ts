// pods/binding as the scheduler uses it: assigns an unbound pod once, marks it scheduled, and
// refuses a second binding with Kubernetes' conflict message. Also: a dry-run delete given in the
// DeleteOptions body (as client-go sends it) deletes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Binding, Pod, ServiceAccount } from '../../../src/api/types/core-v1.generated.js';
import { PODS, SERVICE_ACCOUNTS } from '../../../src/client/resources.js';
import { ApiError } from '../../../src/client/rest/index.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

let cp: InProcessControlPlane;
beforeAll(async () => {
  cp = await startInProcessControlPlane();
  await eventually(() =>
    cp.admin
      .resource<ServiceAccount>(SERVICE_ACCOUNTS)
      .get('default', 'default')
      .catch(() => undefined),
  );
}, 30_000);
afterAll(() => cp?.stop());

const pod = (name: string): Pod => ({
  metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'app', image: 'busybox' }] },
});

describe('pods/binding', () => {
  it('binds an unbound pod once', async () => {
    const pods = cp.admin.resource<Pod>(PODS);
    await pods.create(pod('bound'));
    const binding: Binding = {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'bound', namespace: 'default' },
      target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' },
    };
    await pods.createSubresource('default', 'bound', 'binding', binding);
    const stored = await pods.get('default', 'bound');
    expect(stored.spec?.nodeName).toBe('node-a');
    expect(stored.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status).toBe('True');
    const second: Binding = { ...binding, target: { kind: 'Node', name: 'node-b' } };
    const again = await pods
      .createSubresource('default', 'bound', 'binding', second)
      .catch((error: unknown) => error);
    expect(again).toBeInstanceOf(ApiError);
    expect((again as ApiError).code).toBe(409);
    expect((again as ApiError).message).toContain('pod bound is already assigned to node "node-a"');
  });

  it('keeps the pod when a delete is a dry run in the body', async () => {
    const pods = cp.admin.resource<Pod>(PODS);
    await pods.create(pod('kept'));
    await pods.delete('default', 'kept', { dryRun: true });
    expect((await pods.get('default', 'kept')).metadata?.name).toBe('kept');
  });
});
