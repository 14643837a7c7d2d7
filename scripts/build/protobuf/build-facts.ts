// Joins each generated.proto message with its Go struct: the proto side gives field numbers and wire
// types, the Go side gives JSON names, field order, omitempty, pointers and embedding.
import {
  FIELD_INLINE,
  FIELD_MAP,
  FIELD_OMIT_EMPTY,
  FIELD_POINTER,
  FIELD_REPEATED,
  type FieldFacts,
  type MessageFacts,
  type ProtobufSchema,
  type SpecialType,
} from '../../../src/apiserver/protobuf/schema.js';
import type { GoTypes } from './go-types.js';
import type { ProtoField, ProtoFile } from './proto-file.js';

export interface SourcePackageFacts {
  proto: ProtoFile;
  go: GoTypes;
  /** The API group from register.go; undefined for packages that register no kinds. */
  group: string | undefined;
  version: string;
}

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const APIEXTENSIONS = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

/** Types with a hand-written MarshalJSON (and, for Time, a hand-written protobuf form). */
const SPECIAL_TYPES: Readonly<Record<string, SpecialType>> = {
  [`${META}.Time`]: 'time',
  [`${META}.MicroTime`]: 'microTime',
  [`${META}.Duration`]: 'duration',
  [`${META}.FieldsV1`]: 'fieldsV1',
  'k8s.io.apimachinery.pkg.runtime.RawExtension': 'rawExtension',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': 'intOrString',
  'k8s.io.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'k8s.io.apimachinery.pkg.api.resource.QuantityValue': 'quantity',
  [`${APIEXTENSIONS}.JSON`]: 'json',
  [`${APIEXTENSIONS}.JSONSchemaPropsOrArray`]: 'jsonSchemaPropsOrArray',
  [`${APIEXTENSIONS}.JSONSchemaPropsOrBool`]: 'jsonSchemaPropsOrBool',
  [`${APIEXTENSIONS}.JSONSchemaPropsOrStringArray`]: 'jsonSchemaPropsOrStringArray',
};

/**
 * metav1.AddToGroupVersion registers the option types and WatchEvent in every group version, and the
 * discovery types and Status as unversioned kinds.
 */
const EVERY_VERSION_KINDS = [
  'WatchEvent',
  'ListOptions',
  'GetOptions',
  'DeleteOptions',
  'CreateOptions',
  'UpdateOptions',
  'PatchOptions',
  'Status',
  'APIVersions',
  'APIGroupList',
  'APIGroup',
  'APIResourceList',
];

interface SourceMessage {
  name: string;
  fields: ProtoField[];
  go: GoTypes;
}

export function buildSchema(packages: readonly SourcePackageFacts[], source: string): ProtobufSchema {
  const sources = new Map<string, SourceMessage>();
  for (const pkg of packages) {
    for (const [name, fields] of pkg.proto.messages) sources.set(name, { name, fields, go: pkg.go });
  }
  const kinds: Record<string, Record<string, string>> = {};
  for (const pkg of packages) {
    if (pkg.group === undefined) continue;
    const apiVersion = pkg.group === '' ? pkg.version : `${pkg.group}/${pkg.version}`;
    const byKind: Record<string, string> = {};
    for (const name of pkg.proto.messages.keys()) {
      const short = shortName(name);
      const fields = pkg.go.structs.get(short);
      if (
        Array.isArray(fields) &&
        fields.some((field) => field.embedded && /(^|\.)TypeMeta$/.test(field.type))
      )
        byKind[short] = name;
    }
    if (pkg.proto.package === META) byKind.WatchEvent = `${META}.WatchEvent`;
    kinds[apiVersion] = sortKeys(byKind);
  }
  const everyVersionKinds: Record<string, string> = {};
  for (const kind of EVERY_VERSION_KINDS) {
    const name = `${META}.${kind}`;
    if (!sources.has(name)) throw new Error(`no message ${name}`);
    everyVersionKinds[kind] = name;
  }

  const messages: Record<string, MessageFacts> = {};
  const pending = [...Object.values(kinds).flatMap((byKind) => Object.values(byKind))];
  pending.push(...Object.values(everyVersionKinds));
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (Object.hasOwn(messages, name)) continue;
    const message = sources.get(name);
    if (!message) throw new Error(`message ${name} is referenced but not in the source packages`);
    const facts = messageFacts(message);
    messages[name] = facts;
    if ('fields' in facts) {
      for (const field of facts.fields) if (!isScalar(field[2])) pending.push(field[2]);
    } else if ('list' in facts && !isScalar(facts.list)) {
      pending.push(facts.list);
    }
  }
  for (const name of Object.keys(messages)) checkJsonNames(name, messages);
  return { source, kinds: sortKeys(kinds), everyVersionKinds, messages: sortKeys(messages) };
}

function messageFacts({ name, fields, go }: SourceMessage): MessageFacts {
  const special = SPECIAL_TYPES[name];
  if (special) return { special };
  const short = shortName(name);
  const listItem = go.slices.get(short);
  if (listItem !== undefined) {
    const [items] = fields;
    if (fields.length !== 1 || items.name !== 'items' || items.number !== 1 || !items.repeated) {
      throw new Error(`${name}: a named slice should be a message with one repeated field "items"`);
    }
    return { list: items.type };
  }
  const goFields = go.structs.get(short);
  if (!goFields) throw new Error(`${name}: no Go struct ${short}`);
  if (goFields instanceof Error) throw goFields;
  const byNumber = new Map(fields.map((field) => [field.number, field]));
  const facts: FieldFacts[] = [];
  for (const goField of goFields) {
    if (goField.jsonName === '-') {
      if (goField.protobufNumber !== undefined)
        throw new Error(`${name}.${goField.name}: json "-" on the wire`);
      continue;
    }
    if (goField.protobufNumber === undefined) {
      // Only TypeMeta may be left off the wire: the envelope carries apiVersion and kind.
      if (goField.embedded && /(^|\.)TypeMeta$/.test(goField.type)) continue;
      throw new Error(`${name}.${goField.name} has no protobuf tag`);
    }
    const proto = byNumber.get(goField.protobufNumber);
    if (!proto) throw new Error(`${name}.${goField.name}: no proto field ${goField.protobufNumber}`);
    byNumber.delete(goField.protobufNumber);
    const inline = goField.embedded && !goField.jsonName;
    const pointer = goField.type.startsWith('*');
    if (inline && pointer) throw new Error(`${name}.${goField.name}: embedded pointers are not supported`);
    // A named slice is either repeated on the wire (`ValidationRules`) or wrapped in a message (`Verbs`).
    const consistent = go.slices.has(goField.type)
      ? proto.repeated || shortName(proto.type) === goField.type
      : proto.repeated === (goField.type.startsWith('[]') && goField.type !== '[]byte');
    if (!consistent)
      throw new Error(`${name}.${goField.name}: Go type ${goField.type} does not fit the proto field`);
    let flags = 0;
    if (proto.repeated) flags |= FIELD_REPEATED;
    if (proto.map) flags |= FIELD_MAP;
    if (goField.omitEmpty) flags |= FIELD_OMIT_EMPTY;
    if (pointer) flags |= FIELD_POINTER;
    if (inline) flags |= FIELD_INLINE;
    facts.push([inline ? '' : goField.jsonName || goField.name, proto.number, proto.type, flags]);
  }
  if (byNumber.size > 0) throw new Error(`${name}: proto fields without Go field: ${[...byNumber.keys()]}`);
  return { fields: facts };
}

/** Go's encoder drops names that collide at one depth; none of the built-in types do, so refuse them. */
function checkJsonNames(name: string, messages: Record<string, MessageFacts>): void {
  const names = new Set<string>();
  const visit = (messageName: string): void => {
    const facts = messages[messageName];
    if (!('fields' in facts)) throw new Error(`${name}: inlines ${messageName}, which is not a struct`);
    for (const [json, , type, flags] of facts.fields) {
      if (flags & FIELD_INLINE) {
        visit(type);
      } else if (names.has(json)) {
        throw new Error(`${name}: JSON name ${json} appears twice`);
      } else {
        names.add(json);
      }
    }
  };
  if ('fields' in messages[name]) visit(name);
}

function shortName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

function isScalar(type: string): boolean {
  return !type.includes('.');
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
