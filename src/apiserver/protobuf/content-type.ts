/** Kubernetes' protobuf media type; its own module so that naming it does not load the decoder. */
export const PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';
