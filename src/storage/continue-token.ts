import { InvalidContinueError } from './errors.js';

/**
 * Continue tokens in kube-apiserver's format: base64url (no padding) of
 * `{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key after the prefix>"}`.
 */
interface ContinueTokenJson {
  v: string;
  rv: number;
  start: string;
}

export interface ContinuePosition {
  readonly revision: number;
  /** The first key of the next page, relative to the listed prefix. */
  readonly start: string;
}

export function encodeContinue(position: ContinuePosition): string {
  const json: ContinueTokenJson = { v: 'meta.k8s.io/v1', rv: position.revision, start: position.start };
  return Buffer.from(JSON.stringify(json)).toString('base64url');
}

export function decodeContinue(token: string): ContinuePosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidContinueError('continue key is not valid: illegal base64 or JSON');
  }
  if (typeof parsed !== 'object' || parsed === null) {
    throw new InvalidContinueError('continue key is not valid: not an object');
  }
  const { v, rv, start } = parsed as Partial<ContinueTokenJson>;
  if (v !== 'meta.k8s.io/v1') {
    throw new InvalidContinueError(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
  }
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv <= 0) {
    throw new InvalidContinueError(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
  }
  if (typeof start !== 'string' || start === '') {
    throw new InvalidContinueError('continue key is not valid: encoded start key empty');
  }
  return { revision: rv, start };
}
