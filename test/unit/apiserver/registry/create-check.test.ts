// A large create's validation and storage encoding off the event loop (registry/create-check.ts,
// run by the field manager's thread through FieldManagerThreadBody, and ResourceStore's use of it)
// on a real ApiServer: the same stored text, key order included, and the same 422 messages (Go-
// rendered values too, after the structured clone a thread's answer goes through) as the store's
// own path; etcd's limit refused alike; a thread that fails, kinds whose validation is not their
// built-in rules' and small creates keep the work on the apiserver's thread; managedFields the
// thread answered travel back to it as a placeholder.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../src/api/object.js';
import {
  type CreateCheckThreadRequest,
  FieldManagerThreadBody,
} from '../../../../src/apiserver/apply/field-manager-thread-body.js';
import {
  type CreateCheck,
  type CreateCheckRequest,
  checkCreate,
  createCheckFromPortable,
  portableCreateCheck,
} from '../../../../src/apiserver/registry/create-check.js';
import { encodeForStorage } from '../../../../src/apiserver/registry/stored-object.js';
import { StatusError } from '../../../../src/apiserver/status.js';
import { startTestApi, type TestApi } from '../../node-authorizer/support.js';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
  await api.create('', 'serviceaccounts', {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'default', namespace: 'default' },
  });
}, 60_000);
afterAll(async () => api?.stop());

/** checkCreate as the thread answers it: the request and the answer each structured-cloned. */
function threadLike(calls: CreateCheckRequest[]): (request: CreateCheckRequest) => Promise<CreateCheck> {
  return async (request) => {
    calls.push(request);
    return createCheckFromPortable(
      structuredClone(portableCreateCheck(checkCreate(structuredClone(request)))),
    );
  };
}

const pod = (name: string, containers: number, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels: { app: 'big' }, annotations: { note: 'x' } },
  spec: {
    containers: Array.from({ length: containers }, (_, i) => ({ name: `c${i}`, image: 'busybox', ...extra })),
  },
});

/** The stored text of a pod without what differs between two creates (name, uid, time). */
async function storedShape(name: string): Promise<string> {
  const kv = await api.store.get(`/registry/pods/default/${name}`);
  return kv!.value
    .replaceAll(name, '<name>')
    .replace(/"uid":"[^"]+"/, '"uid":""')
    .replaceAll(/kube-api-access-[a-z0-9]+/g, 'kube-api-access')
    .replaceAll(/"(creationTimestamp|time)":"[^"]+"/g, '"$1":""');
}

async function refusal(work: Promise<unknown>): Promise<StatusError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StatusError);
  return error as StatusError;
}

describe('a large create checked off the event loop', () => {
  it('stores the same text as the apiserver thread would, in the same key order', async () => {
    const pods = api.resources('', 'pods');
    const calls: CreateCheckRequest[] = [];
    await pods.create('default', pod('via-check', 300), { large: true, checkCreate: threadLike(calls) });
    await pods.create('default', pod('here', 300), { large: true });
    expect(calls).toHaveLength(1);
    expect(await storedShape('via-check')).toBe(await storedShape('here'));
    // What the check encoded is what the store holds.
    expect(encodeForStorage(calls[0]!.object)).toBe(
      (await api.store.get('/registry/pods/default/via-check'))!.value,
    );
  });

  it('refuses an invalid object with the same messages, Go-rendered values included', async () => {
    const pods = api.resources('', 'pods');
    // A localhostProfile with another seccomp type is reported with a Go-rendered struct value.
    const invalid = () =>
      pod('Invalid_Name', 3, {
        securityContext: { seccompProfile: { type: 'RuntimeDefault', localhostProfile: 'p.json' } },
      });
    const calls: CreateCheckRequest[] = [];
    const viaCheck = await refusal(
      pods.create('default', invalid(), { large: true, checkCreate: threadLike(calls) }),
    );
    const here = await refusal(pods.create('default', invalid(), { large: true }));
    expect(calls).toHaveLength(1);
    expect(viaCheck.code).toBe(422);
    expect(viaCheck.message).toBe(here.message);
    expect(viaCheck.message).toContain('core.SeccompProfile{Type:"RuntimeDefault"');
    expect(JSON.stringify(viaCheck.toStatus())).toBe(JSON.stringify(here.toStatus()));
  });

  it('refuses an object over etcd’s limit as the store does', async () => {
    const pods = api.resources('', 'pods');
    const calls: CreateCheckRequest[] = [];
    const viaCheck = await refusal(
      pods.create('default', pod('wide', 20_000), { large: true, checkCreate: threadLike(calls) }),
    );
    expect(calls).toHaveLength(1);
    expect(viaCheck.code).toBe(500);
    expect(viaCheck.message).toBe('etcdserver: request is too large');
    expect((await refusal(pods.create('default', pod('wide', 20_000), { large: true }))).message).toBe(
      viaCheck.message,
    );
  }, 30_000);

  it('does the work here when the thread fails, the create is small, or the kind validates otherwise', async () => {
    const pods = api.resources('', 'pods');
    const failing = async () => {
      throw new Error('the field manager thread exited (code 1)');
    };
    const created = await pods.create('default', pod('after-failure', 2), {
      large: true,
      checkCreate: failing,
    });
    expect(created.metadata?.resourceVersion).toBeDefined();
    const calls: CreateCheckRequest[] = [];
    await pods.create('default', pod('small', 2), { checkCreate: threadLike(calls) });
    // CertificateSigningRequests validate with their registry strategy's own function.
    await refusal(
      api.resources('certificates.k8s.io', 'certificatesigningrequests').create(
        '',
        {
          apiVersion: 'certificates.k8s.io/v1',
          kind: 'CertificateSigningRequest',
          metadata: { name: 'csr' },
          spec: {
            request: 'bm90IGEgcmVxdWVzdA==',
            signerName: 'example.com/x',
            usages: ['digital signature'],
          },
        },
        { large: true, checkCreate: threadLike(calls) },
      ),
    );
    expect(calls).toHaveLength(0);
  });
});

describe('the field manager thread’s body', () => {
  it('keeps the managedFields it answered for the create check that sends them back as a placeholder', () => {
    const body = new FieldManagerThreadBody();
    const object = pod('kept', 2_000, {
      imagePullPolicy: 'Always',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    object.spec = {
      ...(object.spec as Record<string, unknown>),
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
    };
    const answer = body.answer({
      id: 7,
      group: '',
      version: 'v1',
      kind: 'Pod',
      subresource: '',
      resetFields: ['status'],
      manager: 'kubectl-create',
      object: JSON.stringify(object),
    });
    // 2,000 containers' managedFields are long: answered in slices.
    expect(answer.managedFieldsSlices?.length).toBeGreaterThan(1);
    const check = (request: CreateCheckThreadRequest) => body.answer(request);
    const placeholder: KubeObject = {
      ...object,
      metadata: {
        ...object.metadata,
        managedFields: [],
        uid: 'u',
        creationTimestamp: '2026-01-01T00:00:00Z',
      },
      spec: { ...(object.spec as object), restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' },
    };
    const request = { group: '', kind: 'Pod', object: placeholder, key: '/registry/pods/default/kept' };
    const checked = check({ id: 8, createCheck: structuredClone(request), managedFieldsOf: 7 });
    const result = checked.createCheck && createCheckFromPortable(checked.createCheck);
    expect(checked.error).toBeUndefined();
    expect(result && 'errors' in result ? result.errors.map((e) => e.field) : []).toEqual([]);
    expect(result && 'storedText' in result).toBe(true);
    const stored = JSON.parse((result as { storedText: string }).storedText) as KubeObject;
    expect(stored.metadata?.managedFields?.[0]?.manager).toBe('kubectl-create');
    expect(JSON.stringify(stored.metadata?.managedFields?.[0]?.fieldsV1)).toContain(
      'k:{\\"name\\":\\"c1999\\"}',
    );
    // managedFields keep their place among the metadata's fields.
    expect(Object.keys(stored.metadata!)).toEqual([
      'name',
      'namespace',
      'labels',
      'annotations',
      'managedFields',
      'uid',
      'creationTimestamp',
    ]);
    // Taken once: a second check for the same answer fails (the apiserver then checks it itself).
    expect(check({ id: 9, createCheck: structuredClone(request), managedFieldsOf: 7 }).error).toBe(
      'no managedFields kept for request 7',
    );
  });
});
