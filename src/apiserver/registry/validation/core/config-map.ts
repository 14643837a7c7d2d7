// ConfigMaps: key names, no key in both data and binaryData, 1 MiB in total, immutability.
import type { KubeObject } from '../../../../api/object.js';
import { utf8Length } from '../../../../api/selectors/go-text.js';
import { type FieldError, fieldForbidden, fieldInvalid, indexPath } from '../../../../api/selectors/index.js';
import { isJsonObject, semanticEqual, stringOf } from '../json.js';
import { isConfigMapKey, nameIsDnsSubdomain } from '../names.js';
import { fieldTooLong, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';

/** core.MaxSecretSize, which ConfigMaps share. */
export const MAX_DATA_SIZE = 1024 * 1024;

/** The decoded length of base64 text (what a []byte field holds). */
export function base64DecodedLength(text: string): number {
  return Buffer.from(text, 'base64').length;
}

/** ValidateConfigMap. */
export function validateConfigMap(configMap: KubeObject): FieldError[] {
  const errors = validateObjectMeta(configMap.metadata, { namespaced: true, name: nameIsDnsSubdomain });
  const data = isJsonObject(configMap.data) ? configMap.data : {};
  const binaryData = isJsonObject(configMap.binaryData) ? configMap.binaryData : {};
  let size = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const problem of isConfigMapKey(key))
      errors.push(fieldInvalid(indexPath('data', key), key, problem));
    if (Object.hasOwn(binaryData, key)) {
      errors.push(fieldInvalid(indexPath('data', key), key, 'duplicate of key present in binaryData'));
    }
    size += utf8Length(stringOf(value));
  }
  for (const [key, value] of Object.entries(binaryData)) {
    for (const problem of isConfigMapKey(key))
      errors.push(fieldInvalid(indexPath('binaryData', key), key, problem));
    size += base64DecodedLength(stringOf(value));
  }
  // The path is empty: the error is about the whole object.
  if (size > MAX_DATA_SIZE) errors.push(fieldTooLong('', MAX_DATA_SIZE));
  return errors;
}

/** ValidateConfigMapUpdate. */
export function validateConfigMapUpdate(configMap: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(configMap.metadata, old.metadata);
  if (old.immutable === true) {
    if (configMap.immutable !== true)
      errors.push(fieldForbidden('immutable', 'field is immutable when `immutable` is set'));
    if (!semanticEqual(configMap.data, old.data))
      errors.push(fieldForbidden('data', 'field is immutable when `immutable` is set'));
    if (!semanticEqual(configMap.binaryData, old.binaryData)) {
      errors.push(fieldForbidden('binaryData', 'field is immutable when `immutable` is set'));
    }
  }
  errors.push(...validateConfigMap(configMap));
  return errors;
}
