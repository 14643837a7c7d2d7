// The CRI methods' gRPC codecs, made from the embedded proto with protobufjs, each on its first
// call. @grpc/proto-loader also builds every message's descriptor for gRPC reflection: ~60 ms of
// CPU at every agent start, before the first CRI call (the runtime's status, ahead of the node's
// registration); the kubelet needs only the codecs. They convert as proto-loader's
// `keepCase: false, longs: Number, enums: String, defaults: true` do.
import protobuf from 'protobufjs';
import { CRI_PROTO } from './proto.js';

export type CriService = 'RuntimeService' | 'ImageService';

export interface CriMethod {
  /** `/runtime.v1.<Service>/<Method>`. */
  readonly path: string;
  serialize(request: object): Buffer;
  deserialize(bytes: Buffer): object;
}

const TO_OBJECT: protobuf.IConversionOptions = { longs: Number, enums: String, defaults: true };

let root: protobuf.Root | undefined;
const methods = new Map<string, CriMethod>();

export function criMethod(service: CriService, name: string): CriMethod {
  const path = `/runtime.v1.${service}/${name}`;
  const known = methods.get(path);
  if (known) return known;
  root ??= protobuf.parse(CRI_PROTO, { keepCase: false }).root;
  const rpc = root.lookupService(`runtime.v1.${service}`).methods[name];
  if (!rpc) throw new Error(`CRI method ${service}.${name} is not in the embedded proto`);
  rpc.resolve();
  const request = rpc.resolvedRequestType!;
  const response = rpc.resolvedResponseType!;
  const method: CriMethod = {
    path,
    serialize: (message) => asBuffer(request.encode(request.fromObject(message)).finish()),
    deserialize: (bytes) => response.toObject(response.decode(bytes), TO_OBJECT),
  };
  methods.set(path, method);
  return method;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
