// Secrets: key names, 1 MiB in total, the keys each type requires, immutability.
import type { KubeObject } from '../../../../api/object.js';
import {
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  indexPath,
} from '../../../../api/selectors/index.js';
import { fieldsOf, isJsonObject, semanticEqual, stringMapOf, stringOf } from '../json.js';
import { isConfigMapKey, nameIsDnsSubdomain } from '../names.js';
import {
  fieldTooLong,
  validateImmutable,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../object-meta.js';
import { base64DecodedLength, MAX_DATA_SIZE } from './config-map.js';

const REDACTED = '<secret contents redacted>';

/** What Go's json.Unmarshal into map[string]interface{} says about the text, or undefined when it is fine. */
function jsonObjectProblem(bytes: Buffer): string | undefined {
  const text = bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text.trim() === '' ? 'unexpected end of JSON input' : 'invalid character in JSON input';
  }
  if (parsed === null || isJsonObject(parsed)) return undefined;
  const type = Array.isArray(parsed) ? 'array' : typeof parsed === 'string' ? 'string' : typeof parsed;
  return `json: cannot unmarshal ${type} into Go value of type map[string]interface {}`;
}

function decoded(data: Record<string, unknown>, key: string): Buffer | undefined {
  return Object.hasOwn(data, key) ? Buffer.from(stringOf(data[key]), 'base64') : undefined;
}

/** ValidateSecret. */
export function validateSecret(secret: KubeObject): FieldError[] {
  const errors = validateObjectMeta(secret.metadata, { namespaced: true, name: nameIsDnsSubdomain });
  const data = isJsonObject(secret.data) ? secret.data : {};
  let size = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const problem of isConfigMapKey(key))
      errors.push(fieldInvalid(indexPath('data', key), key, problem));
    size += base64DecodedLength(stringOf(value));
  }
  if (size > MAX_DATA_SIZE) errors.push(fieldTooLong('data', MAX_DATA_SIZE));
  const requireKey = (key: string) => errors.push(fieldRequired(indexPath('data', key), ''));
  switch (stringOf(secret.type)) {
    case 'kubernetes.io/service-account-token': {
      const annotations = stringMapOf(fieldsOf(secret.metadata).annotations);
      const key = 'kubernetes.io/service-account.name';
      if ((annotations[key] ?? '') === '')
        errors.push(fieldRequired(indexPath('metadata.annotations', key), ''));
      break;
    }
    case 'kubernetes.io/dockercfg':
    case 'kubernetes.io/dockerconfigjson': {
      const key = secret.type === 'kubernetes.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson';
      const bytes = decoded(data, key);
      if (bytes === undefined) {
        requireKey(key);
        break;
      }
      const problem = jsonObjectProblem(bytes);
      if (problem !== undefined) errors.push(fieldInvalid(indexPath('data', key), REDACTED, problem));
      break;
    }
    case 'kubernetes.io/basic-auth':
      if (!Object.hasOwn(data, 'username') && !Object.hasOwn(data, 'password')) {
        requireKey('username');
        requireKey('password');
      }
      break;
    case 'kubernetes.io/ssh-auth':
      if ((decoded(data, 'ssh-privatekey')?.length ?? 0) === 0) requireKey('ssh-privatekey');
      break;
    case 'kubernetes.io/tls':
      if (!Object.hasOwn(data, 'tls.crt')) requireKey('tls.crt');
      if (!Object.hasOwn(data, 'tls.key')) requireKey('tls.key');
      break;
  }
  return errors;
}

/** ValidateSecretUpdate. */
export function validateSecretUpdate(secret: KubeObject, old: KubeObject): FieldError[] {
  const errors = validateObjectMetaUpdate(secret.metadata, old.metadata);
  errors.push(...validateImmutable(stringOf(secret.type), stringOf(old.type), 'type'));
  if (old.immutable === true) {
    if (secret.immutable !== true)
      errors.push(fieldForbidden('immutable', 'field is immutable when `immutable` is set'));
    if (!semanticEqual(secret.data, old.data))
      errors.push(fieldForbidden('data', 'field is immutable when `immutable` is set'));
  }
  errors.push(...validateSecret(secret));
  return errors;
}
