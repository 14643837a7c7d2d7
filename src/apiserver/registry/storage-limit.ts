// etcd's request size limit as kube-apiserver meets it: etcd refuses a write over its
// --max-request-bytes (1.5 MiB by default) and the apiserver answers "etcdserver: request is too
// large". The size is that of kube-apiserver's storage encoding: protobuf for built-in kinds, JSON
// for custom resources.
import type { KubeObject } from '../../api/object.js';
import { protobufEncodedSize } from '../protobuf/encoded-size.js';

/** etcd's default --max-request-bytes (1.5 MiB). */
export const ETCD_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;

/** Whether a stored JSON text fits as it is: protobuf is smaller than JSON for anything this large. */
export function fitsAsJson(key: string, text: string): boolean {
  return text.length + key.length <= ETCD_MAX_REQUEST_BYTES;
}

/** Whether a write of `encodedBytes` in the storage encoding under `key` is over the limit. */
export function overStorageLimit(key: string, encodedBytes: number): boolean {
  return encodedBytes + Buffer.byteLength(key) > ETCD_MAX_REQUEST_BYTES;
}

/** The storage encoding's size of `stored` (an object in its stored form, `text` its JSON). */
export function storageEncodedSize(stored: KubeObject, text: string): number {
  return protobufEncodedSize(stored.apiVersion ?? '', stored.kind ?? '', stored) ?? Buffer.byteLength(text);
}

/** Whether etcd would refuse `stored` (an object in its stored form, `text` its JSON) under `key`. */
export function exceedsStorageLimit(key: string, text: string, stored: KubeObject): boolean {
  return !fitsAsJson(key, text) && overStorageLimit(key, storageEncodedSize(stored, text));
}
