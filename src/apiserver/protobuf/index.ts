export { decodeKubernetesProtobuf, type GroupVersionKind, PROTOBUF_CONTENT_TYPE } from './decode.js';
export { ProtobufDecodeError } from './errors.js';
export type { JsonValue } from './special-types.js';
