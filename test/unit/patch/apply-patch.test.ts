import { describe, expect, it } from 'vitest';
import {
  APPLY_PATCH_YAML,
  applyPatch,
  JSON_PATCH,
  MERGE_PATCH,
  PatchError,
  patchTypeOf,
  STRATEGIC_MERGE_PATCH,
  supportedPatchTypes,
} from '../../../src/apiserver/patch/index.js';
import { deploymentSchema } from './schemas.js';

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: { replicas: 1, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.26' }] } } },
};

function failure(action: () => unknown): PatchError {
  try {
    action();
  } catch (error) {
    if (error instanceof PatchError) return error;
    throw error;
  }
  throw new Error('expected a PatchError');
}

describe('applyPatch', () => {
  it('applies each patch type chosen by Content-Type, ignoring parameters', () => {
    expect(
      applyPatch(
        `${JSON_PATCH}; charset=utf-8`,
        deployment,
        '[{"op":"replace","path":"/spec/replicas","value":3}]',
      ),
    ).toMatchObject({
      spec: { replicas: 3 },
    });
    expect(
      applyPatch(MERGE_PATCH, deployment, Buffer.from('{"metadata":{"labels":{"app":null,"tier":"web"}}}')),
    ).toMatchObject({
      metadata: { labels: { tier: 'web' } },
    });
    const patched = applyPatch(
      STRATEGIC_MERGE_PATCH,
      deployment,
      '{"spec":{"template":{"spec":{"containers":[{"name":"redis","image":"redis"}]}}}}',
      deploymentSchema,
    );
    expect(patched).toMatchObject({
      spec: {
        template: { spec: { containers: [{ name: 'redis' }, { name: 'nginx', image: 'nginx:1.26' }] } },
      },
    });
  });

  it.each([
    ['application/json', true],
    [APPLY_PATCH_YAML, true],
    [undefined, true],
    [`${MERGE_PATCH} ;charset=utf-8`, true],
  ])('answers 415 for Content-Type %s', (contentType, strategic) => {
    const error = failure(() => patchTypeOf(contentType, strategic));
    expect(error.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
      reason: 'UnsupportedMediaType',
      code: 415,
    });
  });

  it('refuses strategic merge patch for a type without schema (custom resources) with 415', () => {
    const error = failure(() => applyPatch(STRATEGIC_MERGE_PATCH, { spec: {} }, '{"spec":{"a":1}}'));
    expect(error).toMatchObject({
      code: 415,
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    });
    expect(supportedPatchTypes(false)).toEqual([JSON_PATCH, MERGE_PATCH, APPLY_PATCH_YAML]);
  });

  it.each([
    [JSON_PATCH, '[{"op":"add"', 'unexpected end of JSON input'],
    [JSON_PATCH, "{'op':'add'}", "invalid character '\\'' looking for beginning of object key string"],
    [JSON_PATCH, '{"op":"add"}', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch'],
    [MERGE_PATCH, '{"a":', 'Invalid JSON Patch'],
    [MERGE_PATCH, 'null', 'Invalid JSON Patch'],
    [MERGE_PATCH, '"x"', 'Invalid JSON Patch'],
    [STRATEGIC_MERGE_PATCH, 'spec: {}', "invalid character 's' looking for beginning of value"],
    [
      STRATEGIC_MERGE_PATCH,
      '[]',
      'json: cannot unmarshal array into Go value of type map[string]interface {}',
    ],
  ])('answers 400 for a %s body %s', (contentType, body, message) => {
    const error = failure(() => applyPatch(contentType, deployment, body, deploymentSchema));
    expect(error.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'BadRequest',
      code: 400,
    });
  });

  it('answers a JSON patch that does not apply like kube-apiserver: 422, generic message, empty details', () => {
    const error = failure(() =>
      applyPatch(JSON_PATCH, deployment, '[{"op":"add","path":"/status/replicas","value":1}]'),
    );
    expect(error.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: {},
      code: 422,
    });
    expect(error.detail).toBe(
      'add operation does not apply: doc is missing path: "/status/replicas": missing value',
    );
  });

  it('answers an unclassified strategic merge patch error with a bare 500', () => {
    const body = '{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}';
    const error = failure(() => applyPatch(STRATEGIC_MERGE_PATCH, deployment, body, deploymentSchema));
    expect(error.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'map: map[image:x] does not contain declared merge key: name',
      code: 500,
    });
  });

  it('leaves the object alone for a null strategic merge patch and returns a merge patch array as is', () => {
    expect(applyPatch(STRATEGIC_MERGE_PATCH, deployment, 'null', deploymentSchema)).toEqual(deployment);
    expect(applyPatch(MERGE_PATCH, deployment, '[{"a":null}]')).toEqual([{}]);
  });
});

describe('__proto__ in a request body', () => {
  it.each([
    [JSON_PATCH, '[{"op":"add","path":"/metadata/__proto__","value":{"polluted":true}}]'],
    [MERGE_PATCH, '{"metadata":{"__proto__":{"polluted":true}}}'],
    [STRATEGIC_MERGE_PATCH, '{"metadata":{"__proto__":{"polluted":true}}}'],
    [MERGE_PATCH, '{"__proto__":{"polluted":true}}'],
  ])('%s stays a plain member and never reaches a prototype', (contentType, body) => {
    const patched = applyPatch(contentType, deployment, body, deploymentSchema) as Record<
      string,
      Record<string, unknown>
    >;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const holder = body.includes('metadata') ? patched.metadata! : patched;
    expect(Object.getPrototypeOf(holder)).toBe(Object.prototype);
    expect(Object.hasOwn(holder, '__proto__')).toBe(true);
    expect(JSON.stringify(patched)).toContain('"__proto__":{"polluted":true}');
  });
});
