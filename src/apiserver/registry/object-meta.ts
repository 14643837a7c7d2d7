import { randomInt, randomUUID } from 'node:crypto';
import type { KubeObject, ObjectMeta } from '../../api/object.js';
import { semanticEqual } from './validation/json.js';

/** The current second's timestamp, formatted once per second: several writes a millisecond ask. */
let currentSecond = Number.NaN;
let currentText = '';

/** Kubernetes timestamps are RFC 3339 with whole seconds. */
export function timestamp(date?: Date): string {
  if (date !== undefined) return `${date.toISOString().slice(0, 19)}Z`;
  const second = Math.floor(Date.now() / 1000);
  if (second !== currentSecond) {
    currentSecond = second;
    currentText = `${new Date(second * 1000).toISOString().slice(0, 19)}Z`;
  }
  return currentText;
}

/** The alphabet of generated name suffixes: no vowels (no words), no confusable characters. */
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const SUFFIX_LENGTH = 5;
/** generateName: names are at most 63 characters before the suffix is added. */
const MAX_GENERATE_NAME_PREFIX = 58;

export function generateName(base: string): string {
  const prefix = base.length > MAX_GENERATE_NAME_PREFIX ? base.slice(0, MAX_GENERATE_NAME_PREFIX) : base;
  let suffix = '';
  for (let i = 0; i < SUFFIX_LENGTH; i++) suffix += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
  return prefix + suffix;
}

export function newUid(): string {
  return randomUUID();
}

export function metaOf(object: KubeObject): ObjectMeta {
  object.metadata ??= {};
  return object.metadata;
}

/** Everything but metadata and status: a change here bumps `metadata.generation`. */
export function specChanged(object: KubeObject, old: KubeObject): boolean {
  const { metadata: _m1, status: _s1, ...a } = object;
  const { metadata: _m2, status: _s2, ...b } = old;
  // Semantic, as upstream's apiequality.Semantic.DeepEqual: key order (kubectl sorts keys; stored
  // objects carry defaults appended) is not a change.
  return !semanticEqual(a, b);
}
