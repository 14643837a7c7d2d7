import { describe, expect, it } from 'vitest';
import { toYaml } from '../../../src/apiserver/openapi/protobuf/yaml.js';

// Expected texts are what go-yaml v3 Marshal (as gnostic calls it) prints for the same JSON, except
// that YAML 1.1 bool words (`y`, `yes`, `on`), which v3 leaves plain, are quoted: kube-openapi reads
// the text back with go-yaml v2, which would take them for booleans.
describe('toYaml', () => {
  it('renders scalars on one line', () => {
    expect(toYaml('merge')).toBe('merge\n');
    expect(toYaml('merge,retainKeys')).toBe('merge,retainKeys\n');
    expect(toYaml(true)).toBe('true\n');
    expect(toYaml(5)).toBe('5\n');
    expect(toYaml(1.5)).toBe('1.5\n');
    expect(toYaml(null)).toBe('null\n');
    expect(toYaml({})).toBe('{}\n');
    expect(toYaml([])).toBe('[]\n');
  });

  it('lays out a group-version-kind list as go-yaml does', () => {
    expect(toYaml([{ group: '', kind: 'Pod', version: 'v1' }])).toBe(
      '- group: ""\n  kind: Pod\n  version: v1\n',
    );
    expect(toYaml({ group: 'apps', version: 'v1', kind: 'Deployment' })).toBe(
      'group: apps\nversion: v1\nkind: Deployment\n',
    );
  });

  it('indents nested collections to the next multiple of four, two past a dash', () => {
    const value = { a: { b: { c: 1 } }, l: [1, [2, 3], { x: [4, { y: 5 }], z: {} }], m: { k: ['p', 'q'] } };
    expect(toYaml(value)).toBe(
      'a:\n    b:\n        c: 1\nl:\n    - 1\n    - - 2\n      - 3\n    - x:\n        - 4\n        - "y": 5\n      z: {}\n' +
        'm:\n    k:\n        - p\n        - q\n',
    );
    expect(toYaml([{ discriminator: 'type', 'fields-to-discriminateBy': { queuing: 'Queuing' } }])).toBe(
      '- discriminator: type\n  fields-to-discriminateBy:\n    queuing: Queuing\n',
    );
  });

  it('quotes strings a YAML reader would take for something else', () => {
    expect(toYaml(['', 'true', 'null', '~', '1.0', '0x1F', 'yes', 'on', 'y'])).toBe(
      '- ""\n- "true"\n- "null"\n- "~"\n- "1.0"\n- "0x1F"\n- "yes"\n- "on"\n- "y"\n',
    );
    expect(toYaml(['a: b', '#c', ' lead', "it's", '@x'])).toBe(
      "- 'a: b'\n- '#c'\n- ' lead'\n- 'it''s'\n- '@x'\n",
    );
    expect(toYaml(['a\nb', 'tab\there', 'bell\u0007', 'q"\\'])).toBe(
      '- "a\\nb"\n- "tab\\there"\n- "bell\\u0007"\n- \'q"\\\'\n',
    );
    expect(toYaml({ 'x y': 'self == oldSelf' })).toBe('x y: self == oldSelf\n');
  });
});
