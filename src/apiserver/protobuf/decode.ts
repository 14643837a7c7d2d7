// Request bodies in `application/vnd.kubernetes.protobuf`: the magic `k8s\0`, then a runtime.Unknown
// whose typeMeta names the object's apiVersion and kind and whose raw holds the object's message. The
// result is the JSON object a client would have sent for the same Go object.
import { ProtobufDecodeError } from './errors.js';
import { protobufSchema } from './load-schema.js';
import { MessageJsonDecoder } from './message-json.js';
import { scalarValue } from './scalars.js';
import { type JsonValue, lengthDelimited } from './special-types.js';
import { readFields, type WireFields } from './wire.js';

export { PROTOBUF_CONTENT_TYPE } from './content-type.js';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

const MAGIC = [0x6b, 0x38, 0x73, 0x00];
// kube-apiserver's scheme name, as its "no kind is registered" errors print it.
const SCHEME_NAME = 'pkg/api/legacyscheme/scheme.go:30';

/**
 * Decodes a Kubernetes protobuf body into the JSON object Kubernetes' JSON serializer would print for
 * it, `apiVersion` and `kind` first. `expected` fills in a kind or group/version the envelope leaves
 * empty, as the apiserver's decoder defaults them from the request's resource.
 */
export function decodeKubernetesProtobuf(
  body: Uint8Array,
  expected?: GroupVersionKind,
): { [key: string]: JsonValue } {
  if (body.length === 0) throw new ProtobufDecodeError('empty data');
  if (body.length < MAGIC.length || MAGIC.some((byte, index) => body[index] !== byte)) {
    throw new ProtobufDecodeError(
      `provided data does not appear to be a protobuf message, expected prefix [${MAGIC.join(' ')}]`,
    );
  }
  if (body.length === MAGIC.length) throw new ProtobufDecodeError('empty body');
  const unknown = readFields(body.subarray(MAGIC.length));
  const typeMeta = readFields(lastBytes(unknown, 1, 'Unknown.typeMeta'));
  const apiVersion = stringField(typeMeta, 1, 'TypeMeta.apiVersion');
  const kind = stringField(typeMeta, 2, 'TypeMeta.kind');
  const gvk = withDefaults({ ...parseApiVersion(apiVersion), kind }, expected);
  const envelopeText = `runtime.TypeMeta{APIVersion:${JSON.stringify(apiVersion)}, Kind:${JSON.stringify(kind)}}`;
  if (!gvk.kind) throw new ProtobufDecodeError(`Object 'Kind' is missing in '${envelopeText}'`);
  if (!gvk.version) throw new ProtobufDecodeError(`Object 'apiVersion' is missing in '${envelopeText}'`);

  const resolvedVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
  const messageName = messageForKind(resolvedVersion, gvk.kind);
  const decoder = new MessageJsonDecoder((nested) => decodeKubernetesProtobuf(nested));
  const object = decoder.message(messageName, lastBytes(unknown, 2, 'Unknown.raw')) as {
    [key: string]: JsonValue;
  };
  return { apiVersion: resolvedVersion, kind: gvk.kind, ...object };
}

function messageForKind(apiVersion: string, kind: string): string {
  const { kinds, everyVersionKinds } = protobufSchema();
  const byKind = Object.hasOwn(kinds, apiVersion) ? kinds[apiVersion] : undefined;
  const name =
    (byKind && Object.hasOwn(byKind, kind) ? byKind[kind] : undefined) ??
    (byKind && Object.hasOwn(everyVersionKinds, kind) ? everyVersionKinds[kind] : undefined);
  if (!name) {
    throw new ProtobufDecodeError(
      `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme ${JSON.stringify(SCHEME_NAME)}`,
    );
  }
  return name;
}

function parseApiVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  throw new ProtobufDecodeError(`unexpected GroupVersion string: ${apiVersion}`);
}

/** The protobuf serializer's copyKindDefaults. */
function withDefaults(actual: GroupVersionKind, defaults: GroupVersionKind | undefined): GroupVersionKind {
  if (!defaults) return actual;
  const result = { ...actual };
  if (!result.kind) result.kind = defaults.kind;
  if (!result.version && defaults.version) {
    result.group = defaults.group;
    result.version = defaults.version;
  }
  return result;
}

function lastBytes(fields: WireFields, number: number, where: string): Uint8Array {
  const occurrences = fields.get(number);
  if (!occurrences) return new Uint8Array();
  return lengthDelimited(occurrences[occurrences.length - 1], where);
}

function stringField(fields: WireFields, number: number, where: string): string {
  const occurrences = fields.get(number);
  if (!occurrences) return '';
  return scalarValue('string', occurrences[occurrences.length - 1], where) as string;
}
