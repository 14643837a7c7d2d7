// The facts the protobuf decoder needs about every built-in message: field numbers, the JSON names the
// Go structs give them, and which Go fields are pointers or `omitempty`, since those decide what the
// Go JSON encoder prints for a field that was absent on the wire. The data (schema.generated.ts) is
// generated once from Kubernetes 1.33's generated.proto and types.go files by
// scripts/build/protobuf/generate-schema.ts; load-schema.ts parses it.

/** The proto2 scalar types the built-in API uses. */
export type ScalarType =
  | 'string'
  | 'bytes'
  | 'bool'
  | 'int32'
  | 'int64'
  | 'uint32'
  | 'uint64'
  | 'double'
  | 'float';

/** Messages whose Go types marshal to JSON with their own `MarshalJSON`. */
export type SpecialType =
  | 'time'
  | 'microTime'
  | 'duration'
  | 'quantity'
  | 'intOrString'
  | 'rawExtension'
  | 'fieldsV1'
  | 'json'
  | 'jsonSchemaPropsOrArray'
  | 'jsonSchemaPropsOrBool'
  | 'jsonSchemaPropsOrStringArray';

/** `repeated` (a Go slice). */
export const FIELD_REPEATED = 1;
/** `map<string, type>` (a Go map). */
export const FIELD_MAP = 2;
/** The Go field's json tag has `omitempty`. */
export const FIELD_OMIT_EMPTY = 4;
/** The Go field is a pointer: absent means nil, not the zero value. */
export const FIELD_POINTER = 8;
/** An embedded Go struct without a JSON name: its fields are printed in the parent's object. */
export const FIELD_INLINE = 16;

/**
 * One field, in Go struct order (the order the JSON encoder prints): JSON name, proto field number,
 * type (a ScalarType or a full message name; for maps the value type, keys are always strings) and
 * FIELD_* flags.
 */
export type FieldFacts = readonly [json: string, number: number, type: string, flags: number];

export type MessageFacts =
  | { readonly fields: readonly FieldFacts[] }
  | { readonly special: SpecialType }
  /** A named Go slice (`type Verbs []string`) wrapped as `message { repeated type items = 1; }`. */
  | { readonly list: string };

export interface ProtobufSchema {
  /** The module versions the facts were read from. */
  readonly source: string;
  /** Message name by apiVersion (`v1`, `apps/v1`) then kind. */
  readonly kinds: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Kinds every group version accepts (options, Status, WatchEvent), by kind. */
  readonly everyVersionKinds: Readonly<Record<string, string>>;
  readonly messages: Readonly<Record<string, MessageFacts>>;
}
