// A tiny protobuf writer for tests: each helper returns one encoded field; `message` joins fields.

export type Part = Uint8Array;

function varintBytes(input: bigint | number): number[] {
  let value = BigInt.asUintN(64, BigInt(input));
  const bytes: number[] = [];
  do {
    let byte = Number(value & 0x7fn);
    value >>= 7n;
    if (value > 0n) byte |= 0x80;
    bytes.push(byte);
  } while (value > 0n);
  return bytes;
}

function key(field: number, wireType: number): number[] {
  return varintBytes((field << 3) | wireType);
}

export function message(...parts: Part[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

/** A varint field: int32, int64 (negative numbers take ten bytes, as in Go), bool. */
export function int(field: number, value: bigint | number | boolean): Part {
  return new Uint8Array([
    ...key(field, 0),
    ...varintBytes(typeof value === 'boolean' ? Number(value) : value),
  ]);
}

export function bytes(field: number, value: Uint8Array): Part {
  return new Uint8Array([...key(field, 2), ...varintBytes(value.length), ...value]);
}

export function str(field: number, value: string): Part {
  return bytes(field, new TextEncoder().encode(value));
}

/** A nested message field. */
export function sub(field: number, ...parts: Part[]): Part {
  return bytes(field, message(...parts));
}

export function double(field: number, value: number): Part {
  const data = Buffer.alloc(8);
  data.writeDoubleLE(value);
  return new Uint8Array([...key(field, 1), ...data]);
}

/** A packed repeated varint field. */
export function packed(field: number, values: readonly (bigint | number)[]): Part {
  return bytes(field, new Uint8Array(values.flatMap((value) => varintBytes(value))));
}

/** One map entry: key 1, value 2 (omit value to leave it off the wire). */
export function entry(field: number, mapKey: string, value?: Part): Part {
  return value ? sub(field, str(1, mapKey), value) : sub(field, str(1, mapKey));
}

/** metav1.Time / MicroTime message. */
export function time(field: number, seconds: number, nanos = 0): Part {
  return nanos ? sub(field, int(1, seconds), int(2, nanos)) : sub(field, int(1, seconds));
}

/** intstr.IntOrString message. */
export function intOrString(field: number, value: number | string): Part {
  return typeof value === 'number'
    ? sub(field, int(1, 0), int(2, value))
    : sub(field, int(1, 1), str(3, value));
}

/** resource.Quantity message. */
export function quantity(field: number, value: string): Part {
  return sub(field, str(1, value));
}

/** The `k8s\0` + runtime.Unknown envelope clients send. */
export function envelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  return message(
    new Uint8Array([0x6b, 0x38, 0x73, 0x00]),
    sub(1, str(1, apiVersion), str(2, kind)),
    bytes(2, raw),
    str(3, ''),
    str(4, ''),
  );
}
