// The hash the kubelet stores on a container (io.kubernetes.container.hash) to notice a changed
// definition (a new image): FNV-1a 64 over the container spec with sorted keys, hex. Resources
// are left out: a resize does not restart a container.
import type { Container } from '../../../api/types/core-v1.generated.js';

const OFFSET = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function fnv64a(text: string): bigint {
  let hash = OFFSET;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= BigInt(byte);
    hash = (hash * PRIME) & MASK;
  }
  return hash;
}

export function containerHash(container: Container): string {
  const { resources: _resources, resizePolicy: _resizePolicy, ...rest } = container;
  return fnv64a(canonical(rest)).toString(16);
}
