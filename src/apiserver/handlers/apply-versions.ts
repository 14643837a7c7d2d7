// The versions a resource's field manager converts managedFields entries between, as kube-apiserver
// builds its versionConverter per kind: built-in kinds served in several group-versions from one
// storage (HPA autoscaling/v1 ↔ v2, core ↔ events.k8s.io Event) convert through their internal
// form; a CRD's versions differ only in apiVersion (conversion `None`), each with its own schema.
// A built-in manager recorded at a version tkube does not serve is dropped (IsMissingVersionError);
// a CR's at a version its CRD no longer has fails the write, as crConverter does upstream.
import type { KubeObject } from '../../api/object.js';
import type { JSONSchemaProps } from '../../api/types/apiextensions-v1.generated.js';
import { builtinType } from '../apply/typed/builtin-types.js';
import { customResourceType } from '../apply/typed/custom-resource-types.js';
import type { SchemaType } from '../apply/typed/schema.js';
import { type KindVersions, VersionConversionError } from '../apply/version-converter.js';
import { convert, convertibleVersionsOf } from '../conversion/index.js';
import type { JsonObject } from '../patch/json-value.js';
import type { ResourceStore } from '../registry/resource-store.js';

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** A built-in kind's versions: those its conversions serve, else the handler's alone. */
export function builtinKindVersions(handlerVersion: string, kind: string): KindVersions {
  const versions = convertibleVersionsOf(kind) ?? [handlerVersion];
  const types = new Map<string, SchemaType | undefined>();
  return {
    handlerVersion,
    typeAt(apiVersion) {
      if (!versions.includes(apiVersion)) return undefined;
      if (!types.has(apiVersion)) {
        const { group, version } = splitApiVersion(apiVersion);
        types.set(apiVersion, builtinType(group, version, kind));
      }
      return types.get(apiVersion);
    },
    convertObject(object, apiVersion) {
      try {
        // A new object (no live one yet) carries neither apiVersion nor kind.
        return convert({ kind, ...object } as KubeObject, splitApiVersion(apiVersion)) as JsonObject;
      } catch (error) {
        throw new VersionConversionError((error as Error).message);
      }
    },
  };
}

/** A CRD's versions (`schemas` by version name), converted by apiVersion alone. */
export function customResourceKindVersions(
  group: string,
  handlerVersion: string,
  kind: string,
  schemas: ReadonlyMap<string, JSONSchemaProps | undefined>,
): KindVersions {
  const types = new Map<string, SchemaType>();
  return {
    handlerVersion,
    typeAt(apiVersion) {
      const target = splitApiVersion(apiVersion);
      // crConverter.ConvertToVersion's refusals, in its words.
      if (target.group !== group) {
        const from = splitApiVersion(handlerVersion);
        throw new VersionConversionError(
          `${from.group}/${from.version}, Kind=${kind} is unstructured and is not suitable for converting to ${JSON.stringify(apiVersion)}`,
        );
      }
      if (!schemas.has(target.version)) {
        throw new VersionConversionError(`request to convert CR to an invalid group/version: ${apiVersion}`);
      }
      let type = types.get(apiVersion);
      if (!type) {
        type = customResourceType(schemas.get(target.version));
        types.set(apiVersion, type);
      }
      return type;
    },
    convertObject: (object, apiVersion) => ({ ...object, apiVersion }),
  };
}

/** The versions a resource's main and status field managers work across. */
export function kindVersionsOf(resources: ResourceStore): KindVersions {
  const { info, custom } = resources;
  const handlerVersion = info.group === '' ? info.version : `${info.group}/${info.version}`;
  if (!custom) return builtinKindVersions(handlerVersion, info.kind);
  const schemas = custom.versionSchemas ?? new Map([[info.version, custom.schema]]);
  return customResourceKindVersions(info.group, handlerVersion, info.kind, schemas);
}

/** Every version the kind has that a strategy's reset fields apply to (built-ins list each). */
export function resetFieldVersions(resources: ResourceStore): readonly string[] {
  const { info, custom } = resources;
  const handlerVersion = info.group === '' ? info.version : `${info.group}/${info.version}`;
  if (custom) return [handlerVersion];
  return convertibleVersionsOf(info.kind) ?? [handlerVersion];
}
