// Reads the type declarations of gofmt-formatted Go API packages (types.go and friends): struct fields
// with their Go types and tags, and named slice types. Only what the JSON encoder's behaviour depends
// on is kept: JSON name, omitempty, pointer-ness, embedding, and the protobuf field number.

export interface GoField {
  /** Go field name (for an embedded field, the type's name). */
  name: string;
  /** Go type as written, e.g. `*int32`, `[]Container`, `metav1.ObjectMeta`. */
  type: string;
  embedded: boolean;
  /** The json tag's name part; undefined when the field has no json tag. */
  jsonName: string | undefined;
  omitEmpty: boolean;
  /** The protobuf tag's field number; undefined when the field has no protobuf tag. */
  protobufNumber: number | undefined;
}

export interface GoTypes {
  /** Struct fields by struct name, or why a struct could not be read (only an error if it is used). */
  structs: Map<string, GoField[] | Error>;
  /** Named slice types, e.g. `Verbs` → `string`. */
  slices: Map<string, string>;
}

const STRUCT_START = /^type (\w+) struct \{$/;
const EMPTY_STRUCT = /^type (\w+) struct\{\}$/;
const SLICE_TYPE = /^type (\w+) \[\]([\w.]+)$/;

/** Parses `key:"value"` pairs of a struct tag the way reflect.StructTag.Get does. */
export function parseStructTag(tag: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const match of tag.matchAll(/(\w+):"((?:[^"\\]|\\.)*)"/g)) values.set(match[1], match[2]);
  return values;
}

export function parseGoTypes(files: readonly { path: string; text: string }[]): GoTypes {
  const structs = new Map<string, GoField[] | Error>();
  const slices = new Map<string, string>();
  for (const { path, text } of files) {
    const lines = text.replace(/^[ \t]*\/\*[\s\S]*?\*\//gm, '').split('\n');
    for (let index = 0; index < lines.length; index++) {
      const slice = SLICE_TYPE.exec(lines[index]);
      if (slice) slices.set(slice[1], slice[2]);
      const empty = EMPTY_STRUCT.exec(lines[index]);
      if (empty) structs.set(empty[1], []);
      const start = STRUCT_START.exec(lines[index]);
      if (!start) continue;
      const fields: GoField[] = [];
      let error: Error | undefined;
      for (index++; lines[index] !== '}'; index++) {
        if (index >= lines.length) throw new Error(`${path}: struct ${start[1]} does not end`);
        try {
          const field = parseFieldLine(lines[index], `${path}: ${start[1]}`);
          if (field) fields.push(field);
        } catch (caught) {
          error ??= caught as Error;
        }
      }
      structs.set(start[1], error ?? fields);
    }
  }
  return { structs, slices };
}

function parseFieldLine(raw: string, where: string): GoField | undefined {
  const line = raw.replace(/^\s+/, '');
  if (line === '' || line.startsWith('//')) return undefined;
  const tagStart = line.indexOf('`');
  const declaration = (tagStart === -1 ? line.replace(/\s*\/\/.*$/, '') : line.slice(0, tagStart)).trim();
  const tag = tagStart === -1 ? '' : line.slice(tagStart + 1, line.indexOf('`', tagStart + 1));
  const words = declaration.split(/\s+/);
  if (words.length > 2 || declaration.includes(',') || declaration.includes('{')) {
    throw new Error(`${where}: cannot read field line: ${raw}`);
  }
  const embedded = words.length === 1;
  const type = embedded ? words[0] : words[1];
  const name = embedded ? type.replace(/^\*/, '').replace(/^\w+\./, '') : words[0];
  const tags = parseStructTag(tag);
  const json = tags.get('json');
  const protobuf = tags.get('protobuf');
  const jsonParts = json?.split(',') ?? [];
  return {
    name,
    type,
    embedded,
    jsonName: json === undefined ? undefined : jsonParts[0],
    omitEmpty: jsonParts.slice(1).includes('omitempty'),
    protobufNumber: protobuf === undefined || protobuf === '-' ? undefined : Number(protobuf.split(',')[1]),
  };
}
