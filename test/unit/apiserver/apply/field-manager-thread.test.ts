// The field manager's thread (apply/field-manager-thread-body.ts) and the write handlers' updater
// that uses it (handlers/managed-fields-off-thread.ts): on a real ApiServer, the thread's answer
// for a big new object, and for a status write of a big live one, equals the apiserver-thread
// FieldManager's, reset fields included; a thread that fails, small objects, and managed fields
// at another version leave the Update to the apiserver's thread.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinJsonSlices } from '../../../../src/api/json-slices.js';
import { LARGE_OBJECT_BYTES } from '../../../../src/api/large-objects.js';
import type { KubeObject, ManagedFieldsEntry } from '../../../../src/api/object.js';
import type { FieldManager } from '../../../../src/apiserver/apply/field-manager.js';
import type { FieldManagerThread } from '../../../../src/apiserver/apply/field-manager-thread.js';
import {
  type FieldManagerThreadRequest,
  managedFieldsFor,
} from '../../../../src/apiserver/apply/field-manager-thread-body.js';
import { managedFieldsUpdater } from '../../../../src/apiserver/handlers/apply-patch.js';
import { offThreadManagedFieldsUpdater } from '../../../../src/apiserver/handlers/managed-fields-off-thread.js';
import { startTestApi, type TestApi } from '../../node-authorizer/support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
}, 60_000);
afterAll(async () => api?.stop());

/** How many answers came in slices (long managedFields). */
let sliced = 0;

/** The thread's work, answered on this thread: what the worker runs, without a worker. */
function inProcessThread(requests: Omit<FieldManagerThreadRequest, 'id'>[]): FieldManagerThread {
  const managers = new Map<string, FieldManager>();
  return {
    async update(request: Omit<FieldManagerThreadRequest, 'id'>) {
      requests.push(request);
      const { managedFields, managedFieldsSlices } = managedFieldsFor(request, managers);
      if (managedFieldsSlices) sliced++;
      return (
        managedFieldsSlices
          ? await joinJsonSlices(structuredClone(managedFieldsSlices))
          : managedFields === undefined
            ? undefined
            : JSON.parse(managedFields)
      ) as ManagedFieldsEntry[] | undefined;
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
      const offThread = offThreadManagedFieldsUpdater(
        resources,
        '',
        'kubectl-create',
        LARGE_OBJECT_BYTES,
        inProcessThread(requests),
      )!;
      const here = managedFieldsUpdater(resources, '', 'kubectl-create')!;
      const empty = (o: KubeObject): KubeObject => ({ apiVersion: o.apiVersion, kind: o.kind });
      const slicedBefore = sliced;
      const viaThread = await offThread(empty(make()), make());
      const onThisThread = here(empty(make()), make());
      expect(requests).toHaveLength(1);
      // Their managedFields are long: the answer came in slices, put back together.
      expect(sliced).toBe(slicedBefore + 1);
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

  it('answers a status write of a big live pod (a small patch) as the apiserver thread does', async () => {
    const pods = api.resources('', 'pods');
    const requests: Omit<FieldManagerThreadRequest, 'id'>[] = [];
    const empty: KubeObject = { apiVersion: 'v1', kind: 'Pod' };
    const create = managedFieldsUpdater(pods, '', 'kubectl-create')!;
    const live = create(empty, bigPod());
    const liveBytes = JSON.stringify(live).length;
    expect(liveBytes).toBeGreaterThanOrEqual(LARGE_OBJECT_BYTES);
    const withCondition = (): KubeObject => {
      const next = structuredClone(live);
      next.status = { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False' }] };
      return next;
    };
    const here = managedFieldsUpdater(pods, 'status', 'kube-scheduler')!;
    const offThread = offThreadManagedFieldsUpdater(
      pods,
      'status',
      'kube-scheduler',
      0,
      inProcessThread(requests),
    )!;
    const viaThread = await offThread(structuredClone(live), withCondition(), liveBytes);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.resetFields).toEqual(['spec']);
    expect(requests[0]!.live).toBeDefined();
    // Entries are ordered by time, to the second: the two runs may fall in different ones.
    const byManager = (list: ManagedFieldsEntry[] | undefined) =>
      timeless(list)?.sort((a, b) => (a.manager ?? '').localeCompare(b.manager ?? ''));
    const entries = byManager(viaThread.metadata?.managedFields);
    expect(entries?.map((entry) => [entry.manager, entry.subresource ?? ''])).toEqual([
      ['kube-scheduler', 'status'],
      ['kubectl-create', ''],
    ]);
    expect(entries).toEqual(byManager(here(structuredClone(live), withCondition()).metadata?.managedFields));
    // The same write of a small live object stays here.
    await offThread(structuredClone(live), withCondition(), LARGE_OBJECT_BYTES - 1);
    expect(requests).toHaveLength(1);
  });

  it('leaves small bodies, entries at another version and a failed thread to the apiserver thread', async () => {
    const pods = api.resources('', 'pods');
    const requests: Omit<FieldManagerThreadRequest, 'id'>[] = [];
    const thread = inProcessThread(requests);
    const empty: KubeObject = { apiVersion: 'v1', kind: 'Pod' };
    const small = offThreadManagedFieldsUpdater(pods, '', 'kubectl-create', LARGE_OBJECT_BYTES - 1, thread)!;
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
    const big = offThreadManagedFieldsUpdater(pods, '', 'kubectl-create', LARGE_OBJECT_BYTES, thread)!;
    expect(timeless((await big(empty, withSent())).metadata?.managedFields)).toEqual(
      timeless(here(empty, withSent()).metadata?.managedFields),
    );
    expect(requests).toHaveLength(1);
    // An entry recorded at another version needs this thread's version converter.
    const atOtherVersion = (): KubeObject => {
      const pod = withSent();
      pod.metadata!.managedFields![0]!.apiVersion = 'v2';
      return pod;
    };
    expect(timeless((await big(empty, atOtherVersion())).metadata?.managedFields)).toEqual(
      timeless(here(empty, atOtherVersion()).metadata?.managedFields),
    );
    expect(requests).toHaveLength(1);
    const failed = offThreadManagedFieldsUpdater(
      pods,
      '',
      'kubectl-create',
      LARGE_OBJECT_BYTES,
      failingThread,
    )!;
    expect(timeless((await failed(empty, bigPod())).metadata?.managedFields)).toEqual(
      timeless(here(empty, bigPod()).metadata?.managedFields),
    );
  });
});
