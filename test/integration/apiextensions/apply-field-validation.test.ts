// Server-side apply of custom resources and the fieldValidation directive, over real HTTPS against
// an in-process control plane: fields the schema does not declare (at the root, in metadata, in an
// embedded resource's metadata) refuse the typed patch object, and keys set twice in the YAML are
// refused under Strict, dropped from the warnings under Warn and take their last value under
// Ignore, as kube-apiserver's applyPatcher does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { ensureClusterPki } from '../../../src/pki/cluster-pki.js';
import { eventually } from '../../support/control-plane.js';
import { type Call, httpsCaller } from '../../support/https-call.js';

let controlPlane: RunningControlPlane;
let call: Call;
const stateDir = mkdtempSync(join(tmpdir(), 'tkube-crd-apply-'));

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const GADGETS = '/apis/example.com/v1/namespaces/default/gadgets';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', kind: 'Gadget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  foo: { type: 'string' },
                  template: {
                    type: 'object',
                    'x-kubernetes-embedded-resource': true,
                    properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

beforeAll(async () => {
  const pki = await ensureClusterPki(join(stateDir, 'pki'));
  controlPlane = await startControlPlane({ stateDir, apiPort: 0 });
  call = httpsCaller(() => controlPlane.port, pki);
  expect((await call('POST', CRDS, crd)).status).toBe(201);
  await eventually(async () => ((await call('GET', GADGETS)).status === 200 ? true : undefined), 10_000);
}, 30_000);

afterAll(async () => {
  await controlPlane?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

function apply(name: string, body: string, query = '') {
  return call('PATCH', `${GADGETS}/${name}?fieldManager=m${query}`, body, APPLY);
}

describe('apply of custom resources and fieldValidation', () => {
  it('refuses a field the schema does not declare, at the root and in metadata', async () => {
    const root = await apply(
      'a',
      'apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: a\nunknownField: x\n',
    );
    expect(root.status).toBe(400);
    expect(root.json().message).toBe(
      'failed to create typed patch object (example.com/v1, Kind=Gadget): .unknownField: field not declared in schema',
    );
    const meta = await apply(
      'a',
      'apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: a\n  unknownMeta: x\n',
    );
    expect(meta.status).toBe(400);
    expect(meta.json().message).toBe(
      'failed to create typed patch object (example.com/v1, Kind=Gadget): .metadata.unknownMeta: field not declared in schema',
    );
    const embedded = await apply(
      'a',
      'apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: a\nspec:\n  template:\n    apiVersion: v1\n    kind: Sub\n    metadata:\n      name: sub\n      unknownSubMeta: x\n',
    );
    expect(embedded.status).toBe(400);
    expect(embedded.json().message).toBe(
      'failed to create typed patch object (example.com/v1, Kind=Gadget): .spec.template.metadata.unknownSubMeta: field not declared in schema',
    );
    expect((await call('GET', `${GADGETS}/a`)).status).toBe(404);
  });

  // Line 1 is the empty line the body opens with, so the repeated `foo` is on line 8.
  const repeated =
    '\napiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: dup\nspec:\n  foo: one\n  foo: two\n';

  it('refuses keys set twice under Strict with the line of the repeat', async () => {
    const strict = await apply('dup', repeated, '&fieldValidation=Strict');
    expect(strict.status).toBe(400);
    expect(strict.json()).toMatchObject({
      reason: 'BadRequest',
      message:
        'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 8: key "foo" already set in map',
    });
    expect((await call('GET', `${GADGETS}/dup`)).status).toBe(404);
  });

  it('applies the last value under Ignore and Warn (whose multi-line warning no header can carry)', async () => {
    const ignored = await apply('dup', repeated, '&fieldValidation=Ignore');
    expect(ignored.status).toBe(201);
    expect((ignored.json().spec as { foo: string }).foo).toBe('two');
    const warned = await apply('dup', repeated.replace('two', 'three'), '&fieldValidation=Warn');
    expect(warned.status).toBe(200);
    expect((warned.json().spec as { foo: string }).foo).toBe('three');
    expect(warned.headers.warning).toBeUndefined();
  });

  it('checks the directive of an apply as of any patch', async () => {
    const bad = await apply('dup', repeated, '&fieldValidation=strict');
    expect(bad.status).toBe(422);
    expect(bad.json().message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
    );
  });
});
