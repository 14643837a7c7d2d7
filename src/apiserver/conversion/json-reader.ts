// Reads typed fields out of JSON the way Go decodes it into a struct, for the converters.
import { isJsonObject, type JsonObject, type KubeObject } from '../../api/object.js';
import { Quantity } from '../../api/quantity.js';

const MIN_INT32 = -2147483648;
const MAX_INT32 = 2147483647;

/**
 * One decode: request bodies and stored objects match keys exactly (sigs.k8s.io/json), while the
 * round-trip annotations go through encoding/json, which also accepts keys differing in case.
 * A value of the wrong type marks the decode failed (Go's Unmarshal error) and reads as absent;
 * JSON null always reads as absent, as Go leaves the zero value.
 */
export class JsonReader {
  failed = false;

  constructor(private readonly caseInsensitive: boolean) {}

  value(source: JsonObject, name: string): unknown {
    if (Object.hasOwn(source, name) || !this.caseInsensitive) return source[name];
    // Go keeps the last of several keys that fold to the same field name.
    const folded = name.toLowerCase();
    let found: unknown;
    for (const [key, value] of Object.entries(source)) if (key.toLowerCase() === folded) found = value;
    return found;
  }

  string(source: JsonObject, name: string): string | undefined {
    const value = this.value(source, name);
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    this.failed = true;
    return undefined;
  }

  int32(source: JsonObject, name: string): number | undefined {
    const value = this.value(source, name);
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'number' && Number.isInteger(value) && value >= MIN_INT32 && value <= MAX_INT32) {
      return value;
    }
    this.failed = true;
    return undefined;
  }

  int64(source: JsonObject, name: string): number | undefined {
    const value = this.value(source, name);
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'number' && Number.isInteger(value)) return value;
    this.failed = true;
    return undefined;
  }

  /** A resource.Quantity as Go writes it back: its kept or canonical text. */
  quantity(source: JsonObject, name: string): string | undefined {
    const value = this.value(source, name);
    if (value === undefined || value === null) return undefined;
    const quantity = Quantity.tryFromJson(value);
    if (quantity !== undefined) return quantity.toString();
    this.failed = true;
    return undefined;
  }

  object(source: JsonObject, name: string): JsonObject | undefined {
    const value = this.value(source, name);
    if (value === undefined || value === null) return undefined;
    if (isJsonObject(value)) return value;
    this.failed = true;
    return undefined;
  }

  /** A slice of structs; a null element decodes to the zero struct. */
  objects(source: JsonObject, name: string): JsonObject[] | undefined {
    const value = this.value(source, name);
    if (value === undefined || value === null) return undefined;
    return this.objectArray(value);
  }

  objectArray(value: unknown): JsonObject[] | undefined {
    if (!Array.isArray(value)) {
      this.failed = true;
      return undefined;
    }
    const result: JsonObject[] = [];
    for (const element of value) {
      if (element === null) result.push({});
      else if (isJsonObject(element)) result.push(element);
      else this.failed = true;
    }
    return result;
  }

  strings(source: JsonObject, name: string): string[] | undefined {
    const value = this.value(source, name);
    if (value === undefined || value === null) return undefined;
    if (Array.isArray(value) && value.every((element) => typeof element === 'string' || element === null)) {
      return value.map((element) => (typeof element === 'string' ? element : ''));
    }
    this.failed = true;
    return undefined;
  }

  /** A map[string]string, keys sorted as Go writes maps. */
  stringMap(source: JsonObject, name: string): Record<string, string> | undefined {
    const value = this.object(source, name);
    if (value === undefined) return undefined;
    const result: Record<string, string> = {};
    for (const key of Object.keys(value).sort()) {
      const entry = value[key];
      if (typeof entry === 'string') result[key] = entry;
      else if (entry === null) result[key] = '';
      else this.failed = true;
    }
    return result;
  }
}

/** A copy without the keys whose value is undefined (Go's omitempty on nil pointers). */
export function compact<T extends object>(value: T): T {
  const result: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) if (entry !== undefined) result[key] = entry;
  return result as T;
}

/** `''` reads as absent: Go's omitempty on strings. */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === '' ? undefined : value;
}

/** The metadata as the converters pass it on: a copy, never the caller's object. */
export function copyMetadata(object: KubeObject): JsonObject {
  return isJsonObject(object.metadata) ? structuredClone(object.metadata) : {};
}
