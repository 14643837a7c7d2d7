import { describe, expect, it } from 'vitest';
import {
  nameIsDns1035Label,
  nameIsDnsLabel,
  nameIsDnsSubdomain,
  nameIsPathSegment,
} from '../../../src/apiserver/registry/validation/names.js';
import {
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../../../src/apiserver/registry/validation/object-meta.js';
import { DNS_LABEL_RULE, DNS_SUBDOMAIN_RULE, messages, summaries } from './support.js';

const subdomain = { namespaced: true, name: nameIsDnsSubdomain };

describe('ObjectMeta on create', () => {
  it('accepts a well-formed object', () => {
    expect(
      validateObjectMeta(
        {
          name: 'web.example',
          namespace: 'default',
          labels: { 'app.kubernetes.io/name': 'web', tier: '' },
          annotations: { 'Example.COM/Key': 'anything goes' },
          finalizers: ['example.com/cleanup', 'kubernetes'],
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true },
          ],
        },
        subdomain,
      ),
    ).toEqual([]);
  });

  it('reports a name that is not a DNS subdomain with the Kubernetes message', () => {
    expect(messages(validateObjectMeta({ name: 'Foo', namespace: 'default' }, subdomain))).toEqual([
      `metadata.name: Invalid value: "Foo": ${DNS_SUBDOMAIN_RULE}`,
    ]);
  });

  it('requires a name or generateName, and a namespace for namespaced kinds', () => {
    expect(summaries(validateObjectMeta({}, subdomain))).toEqual([
      { type: 'FieldValueRequired', field: 'metadata.name', detail: 'name or generateName is required' },
      { type: 'FieldValueRequired', field: 'metadata.namespace', detail: '' },
    ]);
  });

  it('forbids a namespace on cluster-scoped kinds', () => {
    expect(
      summaries(
        validateObjectMeta({ name: 'n', namespace: 'x' }, { namespaced: false, name: nameIsDnsLabel }),
      ),
    ).toEqual([
      { type: 'FieldValueForbidden', field: 'metadata.namespace', detail: 'not allowed on this type' },
    ]);
  });

  it('checks the namespace as a DNS label', () => {
    expect(messages(validateObjectMeta({ name: 'a', namespace: 'a.b' }, subdomain))).toEqual([
      'metadata.namespace: Invalid value: "a.b": must not contain dots',
    ]);
  });

  it('allows a trailing dash in generateName (masked as Kubernetes does)', () => {
    expect(
      validateObjectMeta({ generateName: 'web-', name: 'web-x7k2p', namespace: 'd' }, subdomain),
    ).toEqual([]);
    expect(
      summaries(validateObjectMeta({ generateName: 'Web-', name: 'web-1', namespace: 'd' }, subdomain)),
    ).toEqual([{ type: 'FieldValueInvalid', field: 'metadata.generateName', detail: DNS_SUBDOMAIN_RULE }]);
  });

  it('checks label keys and values at the labels path', () => {
    expect(
      messages(
        validateObjectMeta({ name: 'a', namespace: 'd', labels: { 'bad key': 'v', ok: '-x' } }, subdomain),
      ),
    ).toEqual([
      `metadata.labels: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      `metadata.labels: Invalid value: "-x": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ]);
  });

  it('limits annotations to 256 KiB in total', () => {
    const big = 'x'.repeat(256 * 1024);
    expect(
      messages(validateObjectMeta({ name: 'a', namespace: 'd', annotations: { k: big } }, subdomain)),
    ).toEqual(['metadata.annotations: Too long: may not be more than 262144 bytes']);
    expect(
      validateObjectMeta({ name: 'a', namespace: 'd', annotations: { k: big.slice(1) } }, subdomain),
    ).toEqual([]);
  });

  it('checks finalizer names: qualified, and standard when unprefixed', () => {
    expect(
      summaries(
        validateObjectMeta({ name: 'a', namespace: 'd', finalizers: ['custom', 'a/b/c'] }, subdomain),
      ),
    ).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'metadata.finalizers',
        detail:
          "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      },
      {
        type: 'FieldValueInvalid',
        field: 'metadata.finalizers[0]',
        detail: 'name is neither a standard finalizer name nor is it fully qualified',
      },
    ]);
    expect(
      messages(
        validateObjectMeta(
          { name: 'a', namespace: 'd', finalizers: ['orphan', 'foregroundDeletion'] },
          subdomain,
        ),
      ),
    ).toEqual([
      'metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion"}: finalizer orphan and foregroundDeletion cannot be both set',
    ]);
  });

  it('checks owner references (at the list path) and a single controller', () => {
    const errors = validateObjectMeta(
      {
        name: 'a',
        namespace: 'd',
        ownerReferences: [
          { apiVersion: '', kind: 'X', name: 'x', uid: '1', controller: true },
          { apiVersion: 'v1', kind: 'Y', name: 'y', uid: '', controller: true },
        ],
      },
      subdomain,
    );
    expect(summaries(errors)).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'metadata.ownerReferences.apiVersion',
        detail: 'version must not be empty',
      },
      { type: 'FieldValueInvalid', field: 'metadata.ownerReferences.uid', detail: 'uid must not be empty' },
      {
        type: 'FieldValueInvalid',
        field: 'metadata.ownerReferences',
        detail:
          'Only one reference can have Controller set to true. Found "true" in references for X/x and Y/y',
      },
    ]);
  });

  it('rejects core Events as owners', () => {
    const errors = validateObjectMeta(
      {
        name: 'a',
        namespace: 'd',
        ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: '1' }],
      },
      subdomain,
    );
    expect(errors.map((error) => error.detail)).toEqual([
      '/v1, Kind=Event is disallowed from being an owner',
    ]);
  });

  it('rejects negative generations', () => {
    expect(messages(validateObjectMeta({ name: 'a', namespace: 'd', generation: -1 }, subdomain))).toEqual([
      'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });
});

describe('name rules', () => {
  it('distinguishes DNS labels, DNS-1035 labels and path segments', () => {
    expect(nameIsDnsLabel('a.b', false)).toEqual(['must not contain dots']);
    expect(nameIsDnsLabel('Ab', false)).toEqual([DNS_LABEL_RULE]);
    expect(nameIsDns1035Label('1abc', false)).toHaveLength(1);
    expect(nameIsDns1035Label('abc-1', false)).toEqual([]);
    expect(nameIsPathSegment('..', false)).toEqual(["may not be '..'"]);
    expect(nameIsPathSegment('a/b%', false)).toEqual(["may not contain '/'", "may not contain '%'"]);
    expect(nameIsDnsLabel('x'.repeat(64), false)).toEqual(['must be no more than 63 characters']);
  });
});

describe('ObjectMeta on update', () => {
  const old = {
    name: 'a',
    namespace: 'd',
    uid: 'u1',
    resourceVersion: '5',
    generation: 3,
    creationTimestamp: '2024-05-01T10:00:00Z',
  };

  it('accepts an unchanged object', () => {
    expect(validateObjectMetaUpdate({ ...old, labels: { x: 'y' } }, old)).toEqual([]);
  });

  it('requires a resourceVersion', () => {
    expect(messages(validateObjectMetaUpdate({ ...old, resourceVersion: '' }, old))).toEqual([
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
    ]);
  });

  it('keeps name, namespace, uid and creationTimestamp immutable', () => {
    const errors = validateObjectMetaUpdate(
      { ...old, name: 'b', namespace: 'e', uid: 'u2', creationTimestamp: '2024-05-02T10:00:00Z' },
      old,
    );
    expect(messages(errors)).toEqual([
      'metadata.name: Invalid value: "b": field is immutable',
      'metadata.namespace: Invalid value: "e": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
      'metadata.creationTimestamp: Invalid value: 2024-05-02 10:00:00 +0000 UTC: field is immutable',
    ]);
  });

  it('refuses a decremented generation and new finalizers while deleting', () => {
    const deleting = { ...old, deletionTimestamp: '2024-05-03T00:00:00Z', finalizers: ['a.io/x'] };
    const errors = validateObjectMetaUpdate(
      { ...deleting, generation: 2, finalizers: ['a.io/x', 'b.io/y'] },
      deleting,
    );
    expect(messages(errors)).toEqual([
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y"}',
      'metadata.generation: Invalid value: 2: must not be decremented',
    ]);
  });
});
