// apimachinery's managedfields versionConverter (merge.Converter): a manager's entry recorded at
// another API version of the kind is compared, pruned and reconciled on the object converted to
// that version, with that version's schema. The kind says which versions it has and how an object
// converts between them (built-in conversions through the internal form; CRDs' `None` strategy).
import { isJsonObject, type JsonObject, type JsonValue } from '../patch/json-value.js';
import type { VersionConverter } from './merge/updater.js';
import type { SchemaType } from './typed/schema.js';

/**
 * A conversion that fails for a reason other than a version the kind does not have; upstream's
 * updater stops the write with it (answered as a 500 with the conversion's text).
 */
export class VersionConversionError extends Error {}

export interface KindVersions {
  /** The group/version the handler works at: an object without apiVersion (a new one) is at it. */
  readonly handlerVersion: string;
  /**
   * The schema of one of the kind's versions; undefined for a version the kind does not have
   * (IsMissingVersionError: that manager's entry is dropped). May throw VersionConversionError.
   */
  typeAt(apiVersion: string): SchemaType | undefined;
  /** The object (at another version of the kind) as `apiVersion` holds it. */
  convertObject(object: JsonObject, apiVersion: string): JsonObject;
}

/** versionConverter.Convert over a kind's versions. */
export function versionConverter(kind: KindVersions): VersionConverter {
  return {
    typeAt: (version) => kind.typeAt(version),
    convert(value: JsonValue, version: string): JsonValue | undefined {
      if (!isJsonObject(value)) return value;
      const from = typeof value.apiVersion === 'string' ? value.apiVersion : kind.handlerVersion;
      if (from === version) return value;
      if (kind.typeAt(version) === undefined) return undefined;
      return kind.convertObject(from === value.apiVersion ? value : { ...value, apiVersion: from }, version);
    },
  };
}
