// The pod-template-hash (controller.ComputeHash): FNV-32a over go-spew's `%#v` print of the
// PodTemplateSpec, then the collisionCount as 8 little-endian bytes when set, printed in decimal
// and spelled with the alphabet of generated names (rand.SafeEncodeString). ReplicaSets are named
// `<deployment>-<hash>`, so these names match what Kubernetes gives the same template.
import type { PodTemplateSpec } from '../../api/types/core-v1.generated.js';
import { spewPrint } from './go-spew.js';

/** rand.SafeEncodeString's alphabet: no vowels, no digits easily confused with letters. */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

function fnv32a(bytes: Uint8Array, hash = FNV32_OFFSET): number {
  let h = hash;
  for (const byte of bytes) h = Math.imul(h ^ byte, FNV32_PRIME) >>> 0;
  return h;
}

/** Each character mapped to the alphabet by its code. */
export function safeEncodeString(text: string): string {
  return [...text].map((char) => SAFE_ALPHABET[char.charCodeAt(0) % SAFE_ALPHABET.length]).join('');
}

export function computePodTemplateHash(template: PodTemplateSpec, collisionCount?: number): string {
  let hash = fnv32a(Buffer.from(spewPrint('core.PodTemplateSpec', template), 'utf8'));
  if (collisionCount !== undefined) {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    hash = fnv32a(bytes, hash);
  }
  return safeEncodeString(String(hash));
}
