import { InvalidContinueError } from './errors.js';
import type { KeyValue, ListResult } from './types.js';

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

/** Where a list reads: its revision (undefined or 0: the current one) and its first key. */
export function listPosition(
  prefix: string,
  options: { readonly revision?: number; readonly continue?: string },
): { revision: number | undefined; start: string } {
  if (options.continue === undefined) return { revision: options.revision, start: prefix };
  const position = decodeContinue(options.continue);
  return { revision: position.revision, start: prefix + position.start };
}

/** The positive page size of a list, or undefined for all items. */
export function pageLimit(limit: number | undefined): number | undefined {
  return limit !== undefined && limit > 0 ? limit : undefined;
}

/**
 * A list's result from items read with one more than `limit` asked for: a page and a
 * continue token that starts just after its last key when more items follow.
 */
export function listPage(
  items: KeyValue[],
  prefix: string,
  revision: number,
  limit: number | undefined,
): ListResult {
  if (limit !== undefined && items.length > limit) {
    items.length = limit;
    const next = `${items[limit - 1]!.key}\0`;
    return { items, revision, continue: encodeContinue({ revision, start: next.slice(prefix.length) }) };
  }
  return { items, revision };
}
