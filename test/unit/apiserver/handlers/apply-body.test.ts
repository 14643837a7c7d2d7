// The apply body's decoding: JSON bodies take JSON.parse rather than the YAML parser, and must come
// out exactly as the YAML parse would have them, repeated keys still reported with YAML's lines.

import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { decodeApplyBody, strictApplyBodyError } from '../../../../src/apiserver/handlers/apply-patch.js';

const YAML_OPTIONS = { version: '1.1', prettyErrors: false, uniqueKeys: false } as const;

describe('apply body', () => {
  const json = JSON.stringify({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'admin', labels: { 'a/b': 'true' }, annotations: { when: '2024-01-01', n: '010' } },
    rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list'] }],
    numbers: [0, -1, 1.5, 1e21, -0.25],
    flags: [true, false, null],
    text: 'line\nnext\t"quoted" \\ \u00e9 \u2028 /',
  });

  it('decodes a JSON body to the value the YAML parser gives', () => {
    expect(decodeApplyBody(json)).toEqual(parseYaml(json, YAML_OPTIONS));
    expect(decodeApplyBody(new TextEncoder().encode(`  \n${json}`))).toEqual(parseYaml(json, YAML_OPTIONS));
    // Integers past 2^53 round the same way in both.
    const big = '{"n": 12345678901234567890, "e": 1E3, "f": -0.0}';
    expect(decodeApplyBody(big)).toEqual(parseYaml(big, YAML_OPTIONS));
  });

  it('still decodes YAML, and JSON-looking text that is not JSON, with the YAML parser', () => {
    expect(decodeApplyBody('kind: ConfigMap\ndata:\n  a: "1"\n')).toEqual({
      kind: 'ConfigMap',
      data: { a: '1' },
    });
    // Flow YAML (unquoted keys) is not JSON.
    expect(decodeApplyBody('{kind: ConfigMap, data: {a: b}}')).toEqual({
      kind: 'ConfigMap',
      data: { a: 'b' },
    });
    expect(() => decodeApplyBody('{"kind": ')).toThrow(/error decoding YAML/);
  });

  it('keeps the last of a repeated key in JSON, as the lenient YAML decode does', () => {
    const repeated = '{"kind":"ConfigMap","data":{"a":"1","a":"2"}}';
    expect(decodeApplyBody(repeated)).toEqual(parseYaml(repeated, YAML_OPTIONS));
    expect(decodeApplyBody(repeated)).toEqual({ kind: 'ConfigMap', data: { a: '2' } });
  });

  it('reports repeated keys of a JSON body with their YAML line, and none when there are none', () => {
    expect(strictApplyBodyError(json)).toBeUndefined();
    const repeated = '{\n  "kind": "ConfigMap",\n  "data": {\n    "a": "1",\n    "a": "2"\n  }\n}';
    expect(strictApplyBodyError(repeated)).toBe(
      'error converting YAML to JSON: yaml: unmarshal errors:\n  line 5: key "a" already set in map',
    );
    expect(strictApplyBodyError('kind: ConfigMap\nkind: Secret\n')).toBe(
      'error converting YAML to JSON: yaml: unmarshal errors:\n  line 2: key "kind" already set in map',
    );
  });
});
