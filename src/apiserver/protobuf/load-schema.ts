import { SCHEMA_JSON } from './schema.generated.js';
import type { ProtobufSchema } from './schema.js';

let parsed: ProtobufSchema | undefined;

/** The schema, parsed on first use. Do not mutate. */
export function protobufSchema(): ProtobufSchema {
  parsed ??= JSON.parse(SCHEMA_JSON) as ProtobufSchema;
  return parsed;
}
