// Hostile request bodies and parameters (issue 21): generated cases over real HTTPS against an
// in-process control plane, asserting upstream's status codes and messages, and after each
// batch that /readyz still answers within 100 ms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { ensureClusterPki } from '../../../src/pki/cluster-pki.js';
import { eventually } from '../../support/control-plane.js';
import { type Call, type CallResponse, httpsCaller } from '../../support/https-call.js';

let controlPlane: RunningControlPlane;
let call: Call;
const stateDir = mkdtempSync(join(tmpdir(), 'tkube-hostile-'));

beforeAll(async () => {
  const pki = await ensureClusterPki(join(stateDir, 'pki'));
  controlPlane = await startControlPlane({ stateDir, apiPort: 0 });
  call = httpsCaller(() => controlPlane.port, pki);
}, 30_000);

afterAll(async () => {
  await controlPlane?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const JSON_TYPE = { 'content-type': 'application/json' };
const YAML_TYPE = { 'content-type': 'application/yaml' };
const SMP_TYPE = { 'content-type': 'application/strategic-merge-patch+json' };
const MERGE_TYPE = { 'content-type': 'application/merge-patch+json' };
const JSON_PATCH_TYPE = { 'content-type': 'application/json-patch+json' };

/** `depth` nested arrays or objects around `null`, as JSON text. */
function nested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}null${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}null${'}'.repeat(depth)}`;
}

/** The same nesting in YAML flow style. */
function nestedFlowYaml(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}x${']'.repeat(depth)}`
    : `${'{a: '.repeat(depth)}x${'}'.repeat(depth)}`;
}

let uniqueName = 0;
const fresh = (prefix: string) => `${prefix}-${++uniqueName}`;

/** After each batch: the control plane still answers /readyz at once. */
async function expectStillReady(): Promise<void> {
  const started = performance.now();
  const readyz = await call('GET', '/readyz');
  const elapsed = performance.now() - started;
  expect(readyz.status).toBe(200);
  expect(elapsed).toBeLessThan(100);
}

function expectStatus(response: CallResponse, code: number, reason: string, message?: string | RegExp): void {
  expect(response.status, response.text.slice(0, 500)).toBe(code);
  const status = response.json();
  expect(status).toMatchObject({ kind: 'Status', code, reason });
  if (typeof message === 'string') expect(status.message).toBe(message);
  else if (message) expect(status.message).toMatch(message);
}

describe('hostile input', () => {
  it('refuses JSON nested past 10,000 levels anywhere in a body with 400, as the Go scanner does', async () => {
    const places: Array<[string, (deep: string) => string]> = [
      [
        'data',
        (deep) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n"},"data":{"x":${deep}}}`,
      ],
      [
        'annotations',
        (deep) =>
          `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n","annotations":{"a":${deep}}}}`,
      ],
      ['labels', (deep) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n","labels":${deep}}}`],
      [
        'top level',
        (deep) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n"},"extra":${deep}}`,
      ],
      ['first field', (deep) => `{"x":${deep},"apiVersion":"v1","kind":"ConfigMap"}`],
    ];
    let cases = 0;
    for (const depth of [10_001, 10_002, 20_000, 100_000]) {
      for (const kind of ['array', 'object'] as const) {
        for (const [, body] of places) {
          const text = body(nested(depth, kind));
          const response = await call('POST', CONFIGMAPS, text, JSON_TYPE);
          const opener = kind === 'array' ? '[' : '{';
          expectStatus(
            response,
            400,
            'BadRequest',
            `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; ` +
              `json parse error: invalid character '${opener}' exceeded max depth (${text.slice(0, 30)} ...)`,
          );
          cases++;
        }
      }
    }
    expect(cases).toBe(40);
    // Brackets inside strings are not nesting: a long string of them is an ordinary value.
    const brackets = await call('POST', CONFIGMAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: fresh('brackets') },
      data: { x: '['.repeat(20_000) },
    });
    expect(brackets.status).toBe(201);
    await expectStillReady();
  });

  it('refuses patches nested past 10,000 levels with 400, for every patch type', async () => {
    const name = fresh('patched');
    expect(
      (await call('POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } })).status,
    ).toBe(201);
    for (const depth of [10_001, 30_000]) {
      for (const kind of ['array', 'object'] as const) {
        const opener = kind === 'array' ? '[' : '{';
        const deep = nested(depth, kind);
        const smp = await call('PATCH', `${CONFIGMAPS}/${name}`, `{"data":{"x":${deep}}}`, SMP_TYPE);
        expectStatus(smp, 400, 'BadRequest', `invalid character '${opener}' exceeded max depth`);
        const merge = await call('PATCH', `${CONFIGMAPS}/${name}`, `{"data":{"x":${deep}}}`, MERGE_TYPE);
        expectStatus(merge, 400, 'BadRequest', /exceeded max depth$/);
        const jsonPatch = await call(
          'PATCH',
          `${CONFIGMAPS}/${name}`,
          `[{"op":"add","path":"/data","value":${deep}}]`,
          JSON_PATCH_TYPE,
        );
        expect(jsonPatch.status, jsonPatch.text.slice(0, 300)).toBe(400);
      }
    }
    await expectStillReady();
  });

  it('refuses a custom resource nested 20,000 levels under preserve-unknown-fields with 400', async () => {
    const crd = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'blobs.hostile.example.com' },
      spec: {
        group: 'hostile.example.com',
        scope: 'Namespaced',
        names: { plural: 'blobs', singular: 'blob', kind: 'Blob', listKind: 'BlobList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    });
    expect(crd.status, crd.text).toBe(201);
    const blobs = '/apis/hostile.example.com/v1/namespaces/default/blobs';
    await eventually(async () => ((await call('GET', blobs)).status === 200 ? true : undefined));
    for (const depth of [10_001, 20_000]) {
      const text = `{"apiVersion":"hostile.example.com/v1","kind":"Blob","metadata":{"name":"deep"},"spec":${nested(depth, 'object')}}`;
      const response = await call('POST', blobs, text, JSON_TYPE);
      expectStatus(
        response,
        400,
        'BadRequest',
        /json parse error: invalid character '\{' exceeded max depth/,
      );
    }
    // Below Go's limit but beyond what V8's JSON.stringify holds: refused, never a 500.
    for (const depth of [4_500, 7_000, 9_990]) {
      const text = `{"apiVersion":"hostile.example.com/v1","kind":"Blob","metadata":{"name":"deep"},"spec":${nested(depth, 'object')}}`;
      const response = await call('POST', blobs, text, JSON_TYPE);
      expectStatus(response, 400, 'BadRequest', /^the object is nested too deeply to be stored: /);
    }
    // A deep object that can be stored is served back by get, list and watch.
    const storable = `{"apiVersion":"hostile.example.com/v1","kind":"Blob","metadata":{"name":"storable"},"spec":${nested(2_000, 'object')}}`;
    expect((await call('POST', blobs, storable, JSON_TYPE)).status).toBe(201);
    expect((await call('GET', `${blobs}/storable`)).status).toBe(200);
    expect((await call('GET', blobs)).status).toBe(200);
    expect((await call('GET', `${blobs}?watch=1&timeoutSeconds=1`)).text).toContain('"name":"storable"');
    await expectStillReady();
  });

  it('refuses YAML nested past 10,000 flow levels quickly, with go-yaml text', async () => {
    for (const depth of [10_001, 20_000, 200_000]) {
      for (const kind of ['array', 'object'] as const) {
        for (const [line, prefix] of [
          [1, ''],
          [4, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y}\n'],
        ] as const) {
          const body =
            line === 1 ? nestedFlowYaml(depth, kind) : `${prefix}data: {x: ${nestedFlowYaml(depth, kind)}}\n`;
          const started = performance.now();
          const response = await call('POST', CONFIGMAPS, body, YAML_TYPE);
          expect(performance.now() - started).toBeLessThan(1000);
          expectStatus(
            response,
            400,
            'BadRequest',
            `yaml: ${line === 1 ? '' : `line ${line}: `}exceeded max depth of 10000`,
          );
        }
      }
    }
    // Compact block sequences reach go-yaml's indentation limit the same way.
    for (const depth of [10_001, 50_000, 500_000]) {
      for (const [line, body] of [
        [1, `${'- '.repeat(depth)}x\n`],
        [5, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y}\ndata:\n${'- '.repeat(depth)}x\n`],
        [2, `# comment\n${'? '.repeat(depth)}x\n`],
      ] as const) {
        const started = performance.now();
        const response = await call('POST', CONFIGMAPS, body, YAML_TYPE);
        expect(performance.now() - started).toBeLessThan(1000);
        expectStatus(
          response,
          400,
          'BadRequest',
          `yaml: ${line === 1 ? '' : `line ${line}: `}exceeded max depth of 10000`,
        );
      }
    }
    // Brackets in quotes, comments and plain scalars do not nest.
    const quoted = await call(
      'POST',
      CONFIGMAPS,
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${fresh('yaml')}\n# ${'['.repeat(10_001)}\ndata:\n  a: "${'['.repeat(10_001)}"\n  b: '${'{'.repeat(10_001)}'\n  c: x${'['.repeat(10_001)}\n`,
      YAML_TYPE,
    );
    expect(quoted.status, quoted.text.slice(0, 300)).toBe(201);
    await expectStillReady();
  });

  it('refuses metadata that is not an object with 400, and accepts null metadata fields', async () => {
    const values: Array<[unknown, string]> = [
      ['x', 'string'],
      [1, 'number'],
      [1.5, 'number'],
      [true, 'bool'],
      [[], 'array'],
      [[{ name: 'x' }], 'array'],
    ];
    for (const [resource, kind, path] of [
      ['configmaps', 'ConfigMap', CONFIGMAPS],
      ['secrets', 'Secret', '/api/v1/namespaces/default/secrets'],
      ['deployments', 'Deployment', '/apis/apps/v1/namespaces/default/deployments'],
    ] as const) {
      for (const [metadata, goKind] of values) {
        const apiVersion = resource === 'deployments' ? 'apps/v1' : 'v1';
        const response = await call('POST', path, { apiVersion, kind, metadata });
        expectStatus(
          response,
          400,
          'BadRequest',
          `${kind} in version "v1" cannot be handled as a ${kind}: json: cannot unmarshal ${goKind} into Go struct field ${kind}.metadata of type v1.ObjectMeta`,
        );
      }
    }
    const nullable = [
      'labels',
      'annotations',
      'finalizers',
      'ownerReferences',
      'generateName',
      'creationTimestamp',
    ];
    for (const field of nullable) {
      for (const type of [JSON_TYPE, YAML_TYPE]) {
        const name = fresh('nulls');
        const body =
          type === YAML_TYPE
            ? `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  ${field}: null\n`
            : { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, [field]: null } };
        const created = await call('POST', CONFIGMAPS, body, type);
        expect(created.status, created.text).toBe(201);
        const metadata = created.json().metadata as Record<string, unknown>;
        if (field !== 'creationTimestamp') expect(metadata).not.toHaveProperty(field);
        const updated = await call('PUT', `${CONFIGMAPS}/${name}`, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, resourceVersion: metadata.resourceVersion, [field]: null },
        });
        expect(updated.status, updated.text).toBe(200);
      }
    }
    const allNull = await call('POST', CONFIGMAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: fresh('all-null'),
        labels: null,
        annotations: null,
        finalizers: null,
        ownerReferences: null,
      },
    });
    expect(allNull.status, allNull.text).toBe(201);
    await expectStillReady();
  });

  it('refuses limit values beyond int64 with strconv.ParseInt text, and accepts the largest', async () => {
    for (const value of [
      '9223372036854775808',
      '99999999999999999999',
      '-9223372036854775809',
      `1${'0'.repeat(40)}`,
    ]) {
      for (const path of [CONFIGMAPS, '/api/v1/configmaps', '/apis/apps/v1/deployments']) {
        const response = await call('GET', `${path}?limit=${value}`);
        expectStatus(response, 400, 'BadRequest', `strconv.ParseInt: parsing "${value}": value out of range`);
      }
    }
    for (const value of ['9223372036854775807', '9007199254740993', '1']) {
      const response = await call('GET', `${CONFIGMAPS}?limit=${value}`);
      expect(response.status, response.text).toBe(200);
    }
    await expectStillReady();
  });

  it('answers malformed strategic merge patch directives as upstream does', async () => {
    const deployment = fresh('directives');
    const created = await call('POST', '/apis/apps/v1/namespaces/default/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: deployment },
      spec: {
        selector: { matchLabels: { app: 'x' } },
        template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      },
    });
    expect(created.status).toBe(201);
    const path = `/apis/apps/v1/namespaces/default/deployments/${deployment}`;
    // kube-apiserver's interpretStrategicMergePatchError answers 400/422 only for mergepatch's
    // sentinel errors; these are plain errors from strategicpatch, which reach the client as
    // 500 with no reason (ErrorToAPIStatus), with strategicpatch's text.
    const cases: Array<[string, unknown, number, string]> = [];
    for (const directive of ['bogus', 'Merge', 'REPLACE', '', 'delete ']) {
      cases.push([
        `$patch ${directive}`,
        { $patch: directive },
        500,
        `unknown patch type: ${directive} in map: map[$patch:${directive}]`,
      ]);
      cases.push([
        `nested $patch ${directive}`,
        { spec: { template: { $patch: directive } } },
        500,
        `unknown patch type: ${directive} in map: map[$patch:${directive}]`,
      ]);
    }
    for (const [value, goType] of [
      ['x', 'string'],
      [1, 'int64'],
      [1.5, 'float64'],
      [true, 'bool'],
      [{}, 'map[string]interface {}'],
    ] as const) {
      cases.push([
        `$setElementOrder ${goType}`,
        { spec: { template: { spec: { '$setElementOrder/containers': value } } } },
        500,
        `expected a []interface {}, but received a ${goType}`,
      ]);
    }
    for (const element of [{ image: 'x' }, { image: 'x', ports: [] }, {}]) {
      cases.push([
        'list element without its merge key',
        { spec: { template: { spec: { containers: [element] } } } },
        500,
        `map: map[${Object.entries(element)
          .map(([k, v]) => `${k}:${Array.isArray(v) ? '[]' : v}`)
          .join(' ')}] does not contain declared merge key: name`,
      ]);
    }
    cases.push([
      '$patch merge in a list',
      { spec: { template: { spec: { containers: [{ $patch: 'merge' }] } } } },
      500,
      'merging lists cannot yet be specified in the patch',
    ]);
    for (const [name, patch, code, message] of cases) {
      const response = await call('PATCH', path, patch, SMP_TYPE);
      expect(response.status, `${name}: ${response.text}`).toBe(code);
      expect(response.json()).toMatchObject({ code, reason: '', message });
    }
    await expectStillReady();
  });

  it('refuses objects with no name and no generateName for every resource with metadata.name Required', async () => {
    const nameless: Array<[string, string, Record<string, unknown>]> = [
      ['/api/v1/namespaces/default/configmaps', 'ConfigMap', {}],
      ['/api/v1/namespaces/default/secrets', 'Secret', {}],
      ['/api/v1/namespaces/default/events', 'Event', { involvedObject: { kind: 'Pod', name: 'p' } }],
      [
        '/apis/events.k8s.io/v1/namespaces/default/events',
        'Event',
        { eventTime: '2026-01-01T00:00:00.000000Z' },
      ],
      ['/api/v1/namespaces/default/serviceaccounts', 'ServiceAccount', {}],
      ['/api/v1/namespaces', 'Namespace', {}],
      ['/apis/apiregistration.k8s.io/v1/apiservices', 'APIService', { spec: { group: 'x', version: 'v1' } }],
      [
        '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas',
        'FlowSchema',
        { spec: { priorityLevelConfiguration: { name: 'x' } } },
      ],
      ['/apis/scheduling.k8s.io/v1/priorityclasses', 'PriorityClass', { value: 1 }],
      ['/apis/coordination.k8s.io/v1/namespaces/default/leases', 'Lease', {}],
      ['/apis/rbac.authorization.k8s.io/v1/clusterroles', 'ClusterRole', {}],
    ];
    for (const [path, kind, rest] of nameless) {
      const apiVersion = path.startsWith('/api/') ? 'v1' : path.split('/').slice(2, 4).join('/');
      for (const metadata of [{}, { name: '' }, { generateName: '' }, { name: null }]) {
        const response = await call('POST', path, { apiVersion, kind, metadata, ...rest });
        expect(response.status, `${kind}: ${response.text}`).toBe(422);
        const status = response.json();
        expect(status.reason).toBe('Invalid');
        expect(status.message).toContain('metadata.name: Required value: name or generateName is required');
      }
    }
    await expectStillReady();
  });

  it('refuses ConfigMap data and binaryData values that are not strings with 400', async () => {
    const values: Array<[unknown, string]> = [
      [1, 'number'],
      [1.5, 'number'],
      [-0, 'number'],
      [true, 'bool'],
      [false, 'bool'],
      [{}, 'object'],
      [{ a: 'b' }, 'object'],
      [[], 'array'],
      [['a'], 'array'],
    ];
    for (const [field, goType] of [
      ['data', 'string'],
      ['binaryData', '[]uint8'],
    ] as const) {
      for (const [value, goKind] of values) {
        const response = await call('POST', CONFIGMAPS, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: fresh('typed') },
          [field]: { a: value },
        });
        expectStatus(
          response,
          400,
          'BadRequest',
          `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal ${goKind} into Go struct field ConfigMap.${field} of type ${goType}`,
        );
      }
      const notAMap = await call('POST', CONFIGMAPS, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: fresh('typed') },
        [field]: ['a'],
      });
      expectStatus(
        notAMap,
        400,
        'BadRequest',
        new RegExp(
          `cannot unmarshal array into Go struct field ConfigMap\\.${field} of type map\\[string\\]`,
        ),
      );
    }
    for (const scalar of ['0x1F', '12', '1e3', 'true', 'yes: no']) {
      const response = await call(
        'POST',
        CONFIGMAPS,
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${fresh('yaml-typed')}}\ndata:\n  a: ${scalar}\n`,
        YAML_TYPE,
      );
      expect(response.status, `${scalar}: ${response.text}`).toBe(400);
    }
    for (const scalar of ['.inf', '-.inf', '.nan']) {
      const response = await call(
        'POST',
        CONFIGMAPS,
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${fresh('yaml-typed')}}\ndata:\n  a: ${scalar}\n`,
        YAML_TYPE,
      );
      expect(response.status, `${scalar}: ${response.text}`).toBe(400);
    }
    // A null value decodes to Go's zero value: the empty string.
    const nullValue = await call('POST', CONFIGMAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: fresh('null-value') },
      data: { a: null },
    });
    expect(nullValue.status, nullValue.text).toBe(201);
    expect(nullValue.json().data).toEqual({ a: '' });
    // Updates go through the same decoding.
    const name = fresh('update-typed');
    const created = await call('POST', CONFIGMAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name },
    });
    const update = await call('PUT', `${CONFIGMAPS}/${name}`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name,
        resourceVersion: (created.json().metadata as { resourceVersion: string }).resourceVersion,
      },
      data: { a: 7 },
    });
    expect(update.status).toBe(400);
    await expectStillReady();
  });

  it('decodes boolean query parameters as apimachinery does: only absent, 0 and false are false', async () => {
    const truthy = ['true', 'True', 'TRUE', '1', 't', 'T', 'yes', 'on', ''];
    const falsy = ['false', 'False', 'FALSE', 'fAlSe', '0'];
    const responses = await Promise.all(
      [...truthy, ...falsy].map(async (value) => ({
        value,
        response: await call('GET', `${CONFIGMAPS}?watch=${value}&timeoutSeconds=1`),
      })),
    );
    for (const { value, response } of responses) {
      expect(response.status).toBe(200);
      const isWatch = response.text.startsWith('{"type":');
      expect(isWatch, `watch=${value}`).toBe(truthy.includes(value));
      if (!isWatch) expect(response.json().kind).toBe('ConfigMapList');
    }
    // orphanDependents=True orphans, as the boolean would.
    const owner = fresh('owner');
    await call('POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: owner } });
    const deleted = await call('DELETE', `${CONFIGMAPS}/${owner}?orphanDependents=True`);
    expect(deleted.status, deleted.text).toBe(200);
    await expectStillReady();
  });

  it('answers 405 for methods /version and discovery do not support', async () => {
    const paths = [
      '/version',
      '/api',
      '/apis',
      '/api/v1',
      '/apis/apps',
      '/apis/apps/v1',
      '/version/',
      '/apis/',
    ];
    for (const path of paths) {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        const response = await call(method, path, method === 'DELETE' ? undefined : {});
        expectStatus(
          response,
          405,
          'MethodNotAllowed',
          'the server does not allow this method on the requested resource',
        );
        expect(response.json().details).toEqual({
          causes: [{ reason: 'UnexpectedServerResponse', message: '405: Method Not Allowed' }],
        });
      }
      expect((await call('GET', path)).status).toBe(200);
    }
    // Groups that do not exist stay 404 whatever the method.
    expect((await call('POST', '/apis/nothing.example.com', {})).status).toBe(404);
    await expectStillReady();
  });
});
