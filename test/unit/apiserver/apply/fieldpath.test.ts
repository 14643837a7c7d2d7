// structured-merge-diff's fieldpath: path elements, sets and the fieldsV1 encoding.
import { describe, expect, it } from 'vitest';
import {
  fieldsV1JsonToSet,
  fieldsV1ToSet,
  setToFieldsV1,
  setToFieldsV1Json,
} from '../../../../src/apiserver/apply/fieldpath/fields-v1.js';
import {
  deserializePathElement,
  fieldElement as f,
  indexElement,
  keyElement,
  type Path,
  pathToString,
  serializePathElement,
  valueElement,
} from '../../../../src/apiserver/apply/fieldpath/path-element.js';
import { FieldSet } from '../../../../src/apiserver/apply/fieldpath/set.js';

// fieldsV1 as kube-apiserver writes it for a Deployment's controller and for kubectl.
const DEPLOYMENT_STATUS =
  '{"f:metadata":{"f:annotations":{".":{},"f:deployment.kubernetes.io/revision":{}}},"f:status":{"f:availableReplicas":{},"f:conditions":{".":{},"k:{\\"type\\":\\"Available\\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}},"k:{\\"type\\":\\"Progressing\\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:updatedReplicas":{}}}';
const CONTAINER_PORTS =
  '{"f:spec":{"f:containers":{"k:{\\"name\\":\\"web\\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"containerPort\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{},"f:protocol":{}}}}},"f:finalizers":{"v:\\"a\\"":{},"v:\\"b\\"":{}},"f:items":{"i:0":{},"i:2":{},"i:10":{}}}}';

describe('path elements', () => {
  it('serialises each kind as upstream does and reads it back', () => {
    const cases: [ReturnType<typeof f>, string][] = [
      [f('data'), 'f:data'],
      [
        keyElement([
          { name: 'protocol', value: 'TCP' },
          { name: 'containerPort', value: 80 },
        ]),
        'k:{"containerPort":80,"protocol":"TCP"}',
      ],
      [valueElement('a<b'), 'v:"a\\u003cb"'],
      [indexElement(3), 'i:3'],
    ];
    for (const [pe, text] of cases) {
      expect(serializePathElement(pe)).toBe(text);
      expect(serializePathElement(deserializePathElement(text))).toBe(text);
    }
  });

  it('prints paths as conflict messages do', () => {
    const path: Path = [
      f('spec'),
      f('containers'),
      keyElement([{ name: 'name', value: 'web' }]),
      f('ports'),
      keyElement([
        { name: 'containerPort', value: 80 },
        { name: 'protocol', value: 'TCP' },
      ]),
      f('protocol'),
    ];
    expect(pathToString(path)).toBe(
      '.spec.containers[name="web"].ports[containerPort=80,protocol="TCP"].protocol',
    );
    expect(pathToString([f('finalizers'), valueElement('x')])).toBe('.finalizers[="x"]');
    expect(pathToString([f('args'), indexElement(2)])).toBe('.args[2]');
  });

  it('refuses malformed elements', () => {
    expect(() => deserializePathElement('x')).toThrow('key must be 2 characters long:');
    expect(() => deserializePathElement('fx')).toThrow('missing colon: fx');
    expect(() => deserializePathElement('i:a')).toThrow();
    expect(() => deserializePathElement('k:[1]')).toThrow();
  });
});

describe('field sets', () => {
  const a = FieldSet.of([f('a')], [f('b'), f('c')], [f('b'), f('d')]);
  const b = FieldSet.of([f('b'), f('c')], [f('e')]);

  it('unions, intersects and differences', () => {
    expect(a.union(b).paths().map(pathToString)).toEqual(['.a', '.e', '.b.c', '.b.d']);
    expect(a.intersection(b).paths().map(pathToString)).toEqual(['.b.c']);
    expect(a.difference(b).paths().map(pathToString)).toEqual(['.a', '.b.d']);
    expect(b.difference(a).paths().map(pathToString)).toEqual(['.e']);
  });

  it('recursive difference drops children of removed members', () => {
    const set = FieldSet.of([f('status')], [f('status'), f('phase')], [f('spec'), f('x')]);
    expect(
      set
        .recursiveDifference(FieldSet.of([f('status')]))
        .paths()
        .map(pathToString),
    ).toEqual(['.spec.x']);
    expect(
      set
        .difference(FieldSet.of([f('status')]))
        .paths()
        .map(pathToString),
    ).toEqual(['.spec.x', '.status.phase']);
  });

  it('has, leaves, empty', () => {
    expect(a.has([f('b'), f('c')])).toBe(true);
    expect(a.has([f('b')])).toBe(false);
    const withSelf = FieldSet.of([f('m')], [f('m'), f('k')]);
    expect(withSelf.leaves().paths().map(pathToString)).toEqual(['.m.k']);
    expect(new FieldSet().empty()).toBe(true);
    expect(a.difference(a).empty()).toBe(true);
  });

  it('keeps order and finds children again however paths are inserted', () => {
    // Depth first with items out of order: the shortcuts in descend must not misplace any.
    const names = ['b', 'a', 'c', 'a', 'b', 'd', 'a'];
    const set = new FieldSet();
    for (const name of names) {
      set.insert([f('list'), keyElement([{ name: 'name', value: name }]), f('name')]);
      set.insert([f('list'), keyElement([{ name: 'name', value: name }]), f('value')]);
    }
    set.insert([f('list'), keyElement([{ name: 'name', value: 'a' }])]);
    expect(set.paths().map(pathToString)).toEqual([
      '.list[name="a"]',
      '.list[name="a"].name',
      '.list[name="a"].value',
      '.list[name="b"].name',
      '.list[name="b"].value',
      '.list[name="c"].name',
      '.list[name="c"].value',
      '.list[name="d"].name',
      '.list[name="d"].value',
    ]);
    // absorb replaces a child's contents: what descend remembers must follow.
    const target = set.descend(f('list'));
    target.descend(keyElement([{ name: 'name', value: 'b' }]));
    target.absorb(FieldSet.of([keyElement([{ name: 'name', value: 'b' }]), f('extra')]));
    target.descend(keyElement([{ name: 'name', value: 'b' }])).insertMember(f('more'));
    expect(set.has([f('list'), keyElement([{ name: 'name', value: 'b' }]), f('more')])).toBe(true);
    expect(set.has([f('list'), keyElement([{ name: 'name', value: 'b' }]), f('extra')])).toBe(true);
  });
});

describe('fieldsV1', () => {
  it('round-trips upstream-written sets byte for byte', () => {
    for (const text of [DEPLOYMENT_STATUS, CONTAINER_PORTS, '{}', '{"f:data":{"f:key":{}}}']) {
      const set = fieldsV1JsonToSet(text);
      expect(setToFieldsV1Json(set)).toBe(text);
      expect(JSON.stringify(setToFieldsV1(set))).toBe(text);
    }
  });

  it('orders keys by element kind and value, with "." first', () => {
    const set = FieldSet.of(
      [f('z')],
      [f('list'), indexElement(10)],
      [f('list'), indexElement(2)],
      [f('m')],
      [f('m'), f('b')],
      [f('m'), keyElement([{ name: 'k', value: 'a' }])],
      [f('m'), valueElement(1)],
      [f('m'), valueElement('1')],
      [f('m'), valueElement(true)],
    );
    expect(setToFieldsV1Json(set)).toBe(
      '{"f:list":{"i:2":{},"i:10":{}},"f:m":{".":{},"f:b":{},"k:{\\"k\\":\\"a\\"}":{},"v:1":{},"v:\\"1\\"":{},"v:true":{}},"f:z":{}}',
    );
  });

  it('reads sets written in any key order and skips unknown element kinds', () => {
    const set = fieldsV1ToSet({ 'f:b': {}, 'f:a': { 'f:y': {}, '.': {}, 'f:x': {} }, 'x:ignored': {} });
    expect(setToFieldsV1Json(set)).toBe('{"f:a":{".":{},"f:x":{},"f:y":{}},"f:b":{}}');
  });

  it('reads a list map with more items than a call takes arguments', () => {
    const items: Record<string, object> = {};
    for (let i = 0; i < 200_000; i++) items[`k:{"name":"VAR_${i}"}`] = { '.': {}, 'f:name': {} };
    const set = fieldsV1ToSet({ 'f:env': items });
    expect(set.withPrefix(f('env')).children).toHaveLength(200_000);
  });

  it('refuses malformed documents', () => {
    expect(() => fieldsV1ToSet({ 'f:a': 1 })).toThrow();
    expect(() => fieldsV1ToSet({ 'i:x': {} })).toThrow();
    expect(() => fieldsV1JsonToSet('{')).toThrow();
  });
});
