// /openapi/v2 lists each parameter once under `parameters` and refers to it from the operations, named
// `<name>-<hash of its JSON>` as kube-openapi names them (FNV-64 of the JSON, first six bytes, URL-safe
// base64). Parameters naming the kind stay inline: `name`, bodies of the kind's own schema, and
// `dryRun` / `fieldValidation`, which old kubectl versions look for inline to detect server support.

export type V2Parameter = { readonly [key: string]: unknown };

const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;
const MASK64 = 0xffffffffffffffffn;

function fnv64(bytes: Uint8Array): bigint {
  let hash = FNV64_OFFSET;
  for (const byte of bytes) {
    hash = (hash * FNV64_PRIME) & MASK64;
    hash ^= BigInt(byte);
  }
  return hash;
}

function hashSuffix(json: string): string {
  const sum = Buffer.alloc(8);
  sum.writeBigUInt64BE(fnv64(Buffer.from(json, 'utf8')));
  return sum.subarray(0, 6).toString('base64url');
}

function isShareable(param: V2Parameter): boolean {
  if (param.name === 'name' && (param.in === 'query' || param.in === 'path')) return false;
  if (param.in === 'query' && (param.name === 'fieldValidation' || param.name === 'dryRun')) return false;
  if (param.in === 'body') {
    const ref = (param.schema as { $ref?: unknown } | undefined)?.$ref;
    return typeof ref === 'string' && ref.startsWith('#/definitions/io.k8s.apimachinery');
  }
  return true;
}

/** Collects shareable parameters and names them; `refFor` then maps a parameter to its `$ref` form. */
export class SharedParameters {
  private readonly byJson = new Map<string, V2Parameter>();
  private names: Map<string, string> | undefined;

  collect(param: V2Parameter): void {
    if (isShareable(param)) this.byJson.set(JSON.stringify(param), param);
  }

  private assignNames(): Map<string, string> {
    if (this.names) return this.names;
    const names = new Map<string, string>();
    const taken = new Set<string>();
    for (const json of [...this.byJson.keys()].sort()) {
      const base = String(this.byJson.get(json)!.name || 'param');
      let name = `${base}-${hashSuffix(json)}`;
      for (let i = 1; taken.has(name); i++) name = `${base}-${i}`;
      taken.add(name);
      names.set(json, name);
    }
    this.names = names;
    return names;
  }

  /** The parameter itself, or `{"$ref": "#/parameters/<name>"}` when it is shared. */
  refFor(param: V2Parameter): V2Parameter {
    const name = this.assignNames().get(JSON.stringify(param));
    return name === undefined ? param : { $ref: `#/parameters/${name}` };
  }

  /** The top-level `parameters` map, keys sorted. */
  definitions(): Record<string, V2Parameter> {
    const names = this.assignNames();
    const out: Record<string, V2Parameter> = {};
    for (const [json, name] of [...names].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))) {
      out[name] = this.byJson.get(json)!;
    }
    return out;
  }
}
