// Reads the messages of a Kubernetes generated.proto: go-to-protobuf writes one flat message per Go
// type (no nesting, no enums, no oneofs), so a line-oriented reader is enough.

export interface ProtoField {
  name: string;
  number: number;
  /** Scalar name or fully qualified message name (no leading dot). For maps, the value type. */
  type: string;
  repeated: boolean;
  map: boolean;
}

export interface ProtoFile {
  package: string;
  messages: Map<string, ProtoField[]>;
}

const SCALARS = new Set(['string', 'bytes', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'double', 'float']);
const FIELD = /^(optional|repeated|required) ([\w.]+) (\w+) = (\d+);$/;
const MAP_FIELD = /^map<(\w+), ?([\w.]+)> (\w+) = (\d+);$/;

export function parseProtoFile(text: string, path: string): ProtoFile {
  const lines = text
    .replace(/^[ \t]*\/\*[\s\S]*?\*\//gm, '')
    .split('\n')
    .map((line) => line.replace(/\/\/.*$/, '').trim())
    .filter((line) => line !== '');
  let pkg = '';
  const messages = new Map<string, ProtoField[]>();
  let current: ProtoField[] | undefined;
  const resolve = (type: string): string => {
    if (SCALARS.has(type)) return type;
    if (type.startsWith('.')) return type.slice(1);
    if (type.includes('.')) throw new Error(`${path}: relative qualified type ${type}`);
    return `${pkg}.${type}`;
  };
  for (const line of lines) {
    if (current) {
      if (line === '}') {
        current = undefined;
        continue;
      }
      const field = FIELD.exec(line);
      if (field) {
        current.push({
          name: field[3],
          number: Number(field[4]),
          type: resolve(field[2]),
          repeated: field[1] === 'repeated',
          map: false,
        });
        continue;
      }
      const mapField = MAP_FIELD.exec(line);
      if (mapField) {
        if (mapField[1] !== 'string') throw new Error(`${path}: map key ${mapField[1]} is not string`);
        current.push({
          name: mapField[3],
          number: Number(mapField[4]),
          type: resolve(mapField[2]),
          repeated: false,
          map: true,
        });
        continue;
      }
      throw new Error(`${path}: cannot read message line: ${line}`);
    }
    const pkgLine = /^package ([\w.]+);$/.exec(line);
    if (pkgLine) {
      pkg = pkgLine[1];
      continue;
    }
    const message = /^message (\w+) \{$/.exec(line);
    if (message) {
      current = [];
      messages.set(`${pkg}.${message[1]}`, current);
      continue;
    }
    if (/^(syntax|import|option) /.test(line)) continue;
    throw new Error(`${path}: cannot read line: ${line}`);
  }
  if (!pkg) throw new Error(`${path}: no package statement`);
  return { package: pkg, messages };
}
