// Kubernetes' quantity functions (k8s.io/apiserver/pkg/cel/library/quantity.go): quantity(),
// isQuantity(), comparisons and arithmetic on resource quantities.
import type { Environment } from '@marcbachmann/cel-js';
import { Quantity } from '../../../api/quantity.js';

/** A quantity as a CEL value (`kubernetes.Quantity`). */
export class CelQuantity {
  constructor(readonly quantity: Quantity) {}
}

function negate(q: Quantity): Quantity {
  const text = q.canonical();
  return Quantity.parse(text.startsWith('-') ? text.slice(1) : `-${text}`);
}

function isInteger(q: Quantity): boolean {
  return q.cmp(Quantity.fromInteger(q.value())) === 0;
}

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);

export function registerQuantity(env: Environment): void {
  const T = 'kubernetes.Quantity';
  env.registerType(T, CelQuantity);
  env.registerFunction(`quantity(string): ${T}`, (text: string) => new CelQuantity(Quantity.parse(text)));
  env.registerFunction('isQuantity(string): bool', (text: string) => {
    try {
      Quantity.parse(text);
      return true;
    } catch {
      return false;
    }
  });
  env.registerFunction(`${T}.sign(): int`, (q: CelQuantity) => BigInt(q.quantity.sign()));
  env.registerFunction(`${T}.isInteger(): bool`, (q: CelQuantity) => isInteger(q.quantity));
  env.registerFunction(`${T}.asInteger(): int`, (q: CelQuantity) => {
    const value = q.quantity.value();
    if (!isInteger(q.quantity) || value > MAX_INT64 || value < MIN_INT64)
      throw new Error('cannot convert value to integer');
    return value;
  });
  env.registerFunction(
    `${T}.asApproximateFloat(): double`,
    (q: CelQuantity) => Number(q.quantity.scaledValue(-9)) / 1e9,
  );
  env.registerFunction(
    `${T}.add(${T}): ${T}`,
    (a: CelQuantity, b: CelQuantity) => new CelQuantity(a.quantity.add(b.quantity)),
  );
  env.registerFunction(
    `${T}.add(int): ${T}`,
    (a: CelQuantity, b: bigint) => new CelQuantity(a.quantity.add(Quantity.fromInteger(b))),
  );
  env.registerFunction(
    `${T}.sub(${T}): ${T}`,
    (a: CelQuantity, b: CelQuantity) => new CelQuantity(a.quantity.add(negate(b.quantity))),
  );
  env.registerFunction(
    `${T}.sub(int): ${T}`,
    (a: CelQuantity, b: bigint) => new CelQuantity(a.quantity.add(Quantity.fromInteger(-b))),
  );
  env.registerFunction(
    `${T}.isGreaterThan(${T}): bool`,
    (a: CelQuantity, b: CelQuantity) => a.quantity.cmp(b.quantity) > 0,
  );
  env.registerFunction(
    `${T}.isLessThan(${T}): bool`,
    (a: CelQuantity, b: CelQuantity) => a.quantity.cmp(b.quantity) < 0,
  );
  env.registerFunction(`${T}.compareTo(${T}): int`, (a: CelQuantity, b: CelQuantity) =>
    BigInt(a.quantity.cmp(b.quantity)),
  );
  env.registerOperator(`${T} == ${T}`, (a: CelQuantity, b: CelQuantity) => a.quantity.equals(b.quantity));
}
