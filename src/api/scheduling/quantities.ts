// Resource quantities as the numbers the scheduler adds up: millicores for cpu, whole units
// (bytes, counts) for the rest, both rounded up as Quantity.MilliValue/Value do. Parsing goes
// through the API's Quantity once per distinct text; the results are memoised because the same
// few strings (`100m`, `128Mi`) appear on thousands of pods.
import { Quantity } from '../quantity.js';

const milliValues = new Map<string, number>();
const values = new Map<string, number>();
const MEMO_LIMIT = 10_000;

function parse(text: unknown): Quantity | undefined {
  return Quantity.tryFromJson(text);
}

function remember(memo: Map<string, number>, key: string, value: number): number {
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(key, value);
  return value;
}

/** The quantity × 1000, rounded up; 0 for text that is not a quantity. */
export function milliValueOf(text: unknown): number {
  const key = String(text);
  const known = milliValues.get(key);
  if (known !== undefined) return known;
  const quantity = parse(text);
  return remember(milliValues, key, quantity === undefined ? 0 : Number(quantity.milliValue()));
}

/** The quantity rounded up to an integer; 0 for text that is not a quantity. */
export function wholeValueOf(text: unknown): number {
  const key = String(text);
  const known = values.get(key);
  if (known !== undefined) return known;
  const quantity = parse(text);
  return remember(values, key, quantity === undefined ? 0 : Number(quantity.value()));
}
