// CEL's sets extension (cel-go ext/sets.go): sets.contains, sets.equivalent, sets.intersects.
import type { Environment } from '@marcbachmann/cel-js';
import { compareValues } from './lists.js';

class SetsNamespace {}

function has(list: unknown[], value: unknown): boolean {
  return list.some(
    (item) => item === value || (typeof item === typeof value && compareValues(item, value) === 0),
  );
}

export function registerSets(env: Environment): void {
  env.registerType('SetsNamespace', SetsNamespace);
  env.registerConstant('sets', 'SetsNamespace', new SetsNamespace());
  env.registerFunction(
    'SetsNamespace.contains(list<A>, list<A>): bool',
    (_ns: SetsNamespace, a: unknown[], b: unknown[]) => b.every((item) => has(a, item)),
  );
  env.registerFunction(
    'SetsNamespace.equivalent(list<A>, list<A>): bool',
    (_ns: SetsNamespace, a: unknown[], b: unknown[]) =>
      b.every((item) => has(a, item)) && a.every((item) => has(b, item)),
  );
  env.registerFunction(
    'SetsNamespace.intersects(list<A>, list<A>): bool',
    (_ns: SetsNamespace, a: unknown[], b: unknown[]) => b.some((item) => has(a, item)),
  );
}
