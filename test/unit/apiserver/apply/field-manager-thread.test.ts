// The field manager's thread (apply/field-manager-thread-body.ts) and the create handler's updater
// that uses it (handlers/managed-fields-off-thread.ts): on a real ApiServer, the thread's answer
// for a big new object equals the apiserver-thread FieldManager's, reset fields included, and a
// thread that fails or is given managed fields leaves the Update to the apiserver's thread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject, ManagedFieldsEntry } from '../../../../src/api/object.js';
import type { FieldManager } from '../../../../src/apiserver/apply/field-manager.js';
import type { FieldManagerThread } from '../../../../src/apiserver/apply/field-manager-thread.js';
import {
  type FieldManagerThreadRequest,
  managedFieldsFor,
} from '../../../../src/apiserver/apply/field-manager-thread-body.js';
import { managedFieldsUpdater } from '../../../../src/apiserver/handlers/apply-patch.js';
import {
  createManagedFieldsUpdater,
  OFF_THREAD_BODY_BYTES,
} from '../../../../src/apiserver/handlers/managed-fields-off-thread.js';
import { startTestApi, type TestApi } from '../../node-authorizer/support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
}, 60_000);
afterAll(async () => api?.stop());

/** The thread's work, answered on this thread: what the worker runs, without a worker. */
function inProcessThread(requests: Omit<FieldManagerThreadRequest, 'id'>[]): FieldManagerThread {
  const managers = new Map<string, FieldManager>();
  return {
    async update(request: Omit<FieldManagerThreadRequest, 'id'>) {
      requests.push(request);
      const text = managedFieldsFor(request, managers);
      return text === undefined ? undefined : (JSON.parse(text) as ManagedFieldsEntry[]);
    },
  } as FieldManagerThread;
}

const failingThread = {
  update: () => Promise.reject(new Error('the field manager thread exited (code 1)')),
} as unknown as FieldManagerThread;

const bigPod = (): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'big', namespace: 'default', labels: { app: 'big' } },
  spec: {
    containers: Array.from({ length: 50 }, (_, c) => ({
      name: `c${c}`,
      image: 'busybox',
      ports: [{ containerPort: 8000 + c, protocol: 'TCP' }],
      env: Array.from({ length: 200 }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}` })),
    })),
  },
  status: { phase: 'Pending' },
});

const bigDeployment = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'big', namespace: 'default' },
  spec: {
    selector: { matchLabels: { app: 'big' } },
    template: {
      metadata: { labels: { app: 'big' } },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'busybox',
            env: Array.from({ length: 3000 }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}` })),
          },
        ],
      },
    },
  },
  status: { replicas: 3 },
});

/** Entries without their times (the two runs may fall in different seconds). */
const timeless = (entries: ManagedFieldsEntry[] | undefined) => entries?.map(({ time: _t, ...rest }) => rest);

describe('the field manager thread', () => {
  it.each([
    ['pods', '', bigPod],
    ['deployments', 'apps', bigDeployment],
  ] as const)(
    'answers a big new %s object as the apiserver thread does, status untracked',
    async (resource, group, make) => {
      const resources = api.resources(group, resource);
      const requests: Omit<FieldManagerThreadRequest, 'id'>[] = [];
      const offThread = createManagedFieldsUpdater(
        resources,
        'kubectl-create',
        OFF_THREAD_BODY_BYTES,
        inProcessThread(requests),
      )!;
      const here = managedFieldsUpdater(resources, '', 'kubectl-create')!;
      const empty = (o: KubeObject): KubeObject => ({ apiVersion: o.apiVersion, kind: o.kind });
      const viaThread = await offThread(empty(make()), make());
      const onThisThread = here(empty(make()), make());
      expect(requests).toHaveLength(1);
      expect(requests[0]!.resetFields).toEqual(['status']);
      const entries = viaThread.metadata?.managedFields;
      expect(entries).toHaveLength(1);
      expect(timeless(entries)).toEqual(timeless(onThisThread.metadata?.managedFields));
      expect(JSON.stringify(entries![0]!.fieldsV1)).not.toContain('f:status');
      // The object itself is the one given, managedFields aside.
      const { managedFields: _m, ...metadata } = viaThread.metadata!;
      expect({ ...viaThread, metadata }).toEqual(make());
    },
  );

  it('leaves small bodies, sent managed fields and a failed thread to the apiserver thread', async () => {
    const pods = api.resources('', 'pods');
    const requests: Omit<FieldManagerThreadRequest, 'id'>[] = [];
    const thread = inProcessThread(requests);
    const empty: KubeObject = { apiVersion: 'v1', kind: 'Pod' };
    const small = createManagedFieldsUpdater(pods, 'kubectl-create', OFF_THREAD_BODY_BYTES - 1, thread)!;
    expect((await small(empty, bigPod())).metadata?.managedFields).toHaveLength(1);
    const withSent = (): KubeObject => {
      const pod = bigPod();
      pod.metadata!.managedFields = [
        {
          manager: 'other',
          operation: 'Update',
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } } },
        },
      ];
      return pod;
    };
    const here = managedFieldsUpdater(pods, '', 'kubectl-create')!;
    const big = createManagedFieldsUpdater(pods, 'kubectl-create', OFF_THREAD_BODY_BYTES, thread)!;
    expect(timeless((await big(empty, withSent())).metadata?.managedFields)).toEqual(
      timeless(here(empty, withSent()).metadata?.managedFields),
    );
    expect(requests).toHaveLength(0);
    const failed = createManagedFieldsUpdater(pods, 'kubectl-create', OFF_THREAD_BODY_BYTES, failingThread)!;
    expect(timeless((await failed(empty, bigPod())).metadata?.managedFields)).toEqual(
      timeless(here(empty, bigPod()).metadata?.managedFields),
    );
  });
});
