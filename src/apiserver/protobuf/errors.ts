/** A request body that is not a valid Kubernetes protobuf object; the apiserver answers 400 BadRequest. */
export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';
}
