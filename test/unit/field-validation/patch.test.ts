import { describe, expect, it } from 'vitest';
import {
  checkPatchBody,
  conversionUnknownFieldErrors,
  type FieldValidation,
  validatePatchedFields,
} from '../../../src/apiserver/field-validation/index.js';
import { definitionShape } from '../../../src/apiserver/field-validation/shapes.js';
import {
  JSON_PATCH,
  MERGE_PATCH,
  type PatchType,
  STRATEGIC_MERGE_PATCH,
} from '../../../src/apiserver/patch/index.js';
import { StatusError } from '../../../src/apiserver/status.js';

const gvk = { group: 'apps', version: 'v1', kind: 'Deployment' };

/** A patched Deployment: what the patch produced, before defaulting. */
const patched = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: {
    replicas: 2,
    replicasx: 3,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx', imagex: 'x' }] },
    },
  },
};

function thrown(action: () => unknown): StatusError {
  try {
    action();
  } catch (error) {
    if (error instanceof StatusError) return error;
    throw error;
  }
  throw new Error('expected a StatusError');
}

describe('checkPatchBody', () => {
  it.each<{ name: string; type: PatchType; body: string; errors: string[] }>([
    {
      name: 'merge patch: duplicate fields at any depth',
      type: MERGE_PATCH,
      body: '{"spec":{"replicas":1,"replicas":2,"template":{"metadata":{"labels":{"a":"1","a":"2"}}}}}',
      errors: ['duplicate field "spec.replicas"', 'duplicate field "spec.template.metadata.labels.a"'],
    },
    {
      name: 'strategic merge patch: duplicates inside directives too',
      type: STRATEGIC_MERGE_PATCH,
      body: '{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"a","name":"b"}]}}}}',
      errors: ['duplicate field "spec.template.spec.$setElementOrder/containers[0].name"'],
    },
    {
      name: 'JSON patch: unknown and duplicate operation fields, duplicates inside values',
      type: JSON_PATCH,
      body: '[{"op":"add","path":"/spec/replicas","valu":3},{"op":"replace","op":"add","path":"/x","value":{"a":1,"a":2}}]',
      errors: [
        'json patch unknown field "[0].valu"',
        'json patch duplicate field "[1].op"',
        'json patch duplicate field "[1].value.a"',
      ],
    },
    { name: 'a clean merge patch', type: MERGE_PATCH, body: '{"spec":{"replicas":1}}', errors: [] },
  ])('$name', ({ type, body, errors }) => {
    expect(checkPatchBody(type, body, 'Strict').errors).toEqual(errors);
  });

  it.each<{ type: PatchType; body: string; message: string }>([
    {
      type: JSON_PATCH,
      body: '{"op":"add"}',
      message:
        'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
    },
    {
      type: JSON_PATCH,
      body: '["add"]',
      message:
        'error decoding patch: json: cannot unmarshal string into Go value of type handlers.jsonPatchOp',
    },
    {
      type: JSON_PATCH,
      body: '[{"op":"add","path":5}]',
      message:
        'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string',
    },
    {
      type: MERGE_PATCH,
      body: '[1]',
      message:
        'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}',
    },
    {
      type: MERGE_PATCH,
      body: '{"spec":',
      message: 'error decoding patch: unexpected end of JSON input',
    },
    {
      type: STRATEGIC_MERGE_PATCH,
      body: '"x"',
      message: 'json: cannot unmarshal string into Go value of type map[string]interface {}',
    },
  ])('rejects $body as a $type with a 400', ({ type, body, message }) => {
    const error = thrown(() => checkPatchBody(type, body, 'Warn'));
    expect(error.code).toBe(400);
    expect(error.reason).toBe('BadRequest');
    expect(error.message).toBe(message);
  });

  it('checks nothing under Ignore', () => {
    expect(checkPatchBody(MERGE_PATCH, '[1]', 'Ignore').errors).toEqual([]);
  });
});

describe('validatePatchedFields', () => {
  it('strategic merge patch, Warn: body errors first, then the merged object’s unknown fields sorted', () => {
    const check = checkPatchBody(
      STRATEGIC_MERGE_PATCH,
      '{"spec":{"replicasx":3,"replicas":1,"replicas":2}}',
      'Warn',
    );
    expect(validatePatchedFields(check, patched, gvk)).toEqual([
      'duplicate field "spec.replicas"',
      'unknown field "spec.replicasx"',
      'unknown field "spec.template.spec.containers[0].imagex"',
    ]);
  });

  it('strategic merge patch, Strict: 422 showing the patch as a Go map', () => {
    const check = checkPatchBody(STRATEGIC_MERGE_PATCH, '{"spec":{"replicasx":3,"paused":false}}', 'Strict');
    const error = thrown(() => validatePatchedFields(check, patched, gvk));
    const detail =
      'strict decoding error: unknown field "spec.replicasx", unknown field "spec.template.spec.containers[0].imagex"';
    expect(error.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: ` "" is invalid: patch: Invalid value: "map[spec:map[paused:false replicasx:3]]": ${detail}`,
      reason: 'Invalid',
      details: {
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: `Invalid value: "map[spec:map[paused:false replicasx:3]]": ${detail}`,
            field: 'patch',
          },
        ],
      },
      code: 422,
    });
  });

  it('merge patch, Strict: 422 showing the patched object as Go encodes it (sorted keys)', () => {
    const check = checkPatchBody(MERGE_PATCH, '{"spec":{"replicasx":3}}', 'Strict');
    const object = {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'a&b' },
      spec: { replicasx: 3 },
    };
    const error = thrown(() => validatePatchedFields(check, object, gvk));
    expect(error.code).toBe(422);
    expect(error.message).toBe(
      ' "" is invalid: patch: Invalid value: "{\\"apiVersion\\":\\"apps/v1\\",\\"kind\\":\\"Deployment\\",\\"metadata\\":{\\"name\\":\\"a\\\\u0026b\\"},\\"spec\\":{\\"replicasx\\":3}}": strict decoding error: unknown field "spec.replicasx"',
    );
  });

  it('JSON patch, Warn: operation errors, then unknown fields of the result in sorted-key order', () => {
    const check = checkPatchBody(
      JSON_PATCH,
      '[{"op":"add","path":"/spec/replicasx","value":3,"x":1}]',
      'Warn',
    );
    const object = { ...patched, spec: { ...patched.spec, zeta: 1, alpha: 2 } };
    expect(validatePatchedFields(check, object, gvk)).toEqual([
      'json patch unknown field "[0].x"',
      'unknown field "spec.alpha"',
      'unknown field "spec.replicasx"',
      'unknown field "spec.template.spec.containers[0].imagex"',
      'unknown field "spec.zeta"',
    ]);
  });

  it.each<{ mode: FieldValidation; outcome: string[] | 'throws' }>([
    { mode: 'Strict', outcome: 'throws' },
    { mode: 'Warn', outcome: ['duplicate field "metadata.name"'] },
    { mode: 'Ignore', outcome: [] },
  ])('$mode: a patch whose only problem is a duplicate in its body', ({ mode, outcome }) => {
    const clean = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'b' } };
    const check = checkPatchBody(MERGE_PATCH, '{"metadata":{"name":"a","name":"b"}}', mode);
    if (outcome === 'throws') expect(() => validatePatchedFields(check, clean, gvk)).toThrow(StatusError);
    else expect(validatePatchedFields(check, clean, gvk)).toEqual(outcome);
  });
});

describe('conversionUnknownFieldErrors', () => {
  it('leaves map keys out of paths, prints them unquoted and sorts the texts', () => {
    const props = definitionShape('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps');
    const schema = { type: 'object', properties: { spec: { type: 'object', bogus: 1, 'q"': 2 } }, aaa: 3 };
    expect(conversionUnknownFieldErrors(schema, props)).toEqual([
      'unknown field "aaa"',
      'unknown field "properties.bogus"',
      'unknown field "properties.q""',
    ]);
  });
});
