// Kubernetes' list functions (k8s.io/apiserver/pkg/cel/library/lists.go): isSorted, sum, min, max,
// indexOf, lastIndexOf.
import type { Environment } from '@marcbachmann/cel-js';

/** Orders two CEL values of one comparable type (int, uint, double, string, timestamp, duration). */
export function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = typeof a === 'bigint' ? a : Number(a);
  const y = typeof b === 'bigint' ? b : Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function extreme(list: unknown[], name: string, sign: number): unknown {
  if (list.length === 0) throw new Error(`${name} called on empty list`);
  let best = list[0];
  for (const item of list) if (compareValues(item, best) * sign > 0) best = item;
  return best;
}

function sameValue(a: unknown, b: unknown): boolean {
  return (
    a === b ||
    (typeof a === 'object' &&
      a !== null &&
      compareValues(a, b) === 0 &&
      a.constructor === (b as object)?.constructor)
  );
}

export function registerLists(env: Environment): void {
  for (const t of [
    'int',
    'uint',
    'double',
    'bool',
    'string',
    'bytes',
    'google.protobuf.Timestamp',
    'google.protobuf.Duration',
  ]) {
    env.registerFunction(`list<${t}>.isSorted(): bool`, (list: unknown[]) =>
      list.every((item, i) => i === 0 || compareValues(list[i - 1], item) <= 0),
    );
    env.registerFunction(`list<${t}>.min(): ${t}`, (list: unknown[]) => extreme(list, 'min', -1));
    env.registerFunction(`list<${t}>.max(): ${t}`, (list: unknown[]) => extreme(list, 'max', 1));
  }
  env.registerFunction('list<int>.sum(): int', (list: bigint[]) => list.reduce((a, b) => a + b, 0n));
  env.registerFunction('list<double>.sum(): double', (list: number[]) => list.reduce((a, b) => a + b, 0));
  env.registerFunction('list<A>.indexOf(A): int', (list: unknown[], value: unknown) =>
    BigInt(list.findIndex((item) => sameValue(item, value))),
  );
  env.registerFunction('list<A>.lastIndexOf(A): int', (list: unknown[], value: unknown) =>
    BigInt(list.findLastIndex((item) => sameValue(item, value))),
  );
}
