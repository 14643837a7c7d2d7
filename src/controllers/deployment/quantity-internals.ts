// How a resource.Quantity looks inside once Go has parsed it (resource.ParseQuantity in
// k8s.io/apimachinery 1.33): an int64 mantissa and decimal scale on the fast path, keeping the
// text itself when it is already canonical; an inf.Dec (a big integer and a scale) otherwise. The
// pod-template hash prints these internals, so they must be exactly Go's.
import { interpretSuffix, pow10 } from '../../api/quantity.js';

export type QuantityInternals =
  | {
      readonly kind: 'int64';
      readonly value: bigint;
      readonly scale: number;
      /** The text kept verbatim (`''` when it was not canonical). */
      readonly text: string;
      readonly format: string;
    }
  | {
      readonly kind: 'dec';
      /** The unscaled value (the amount is unscaled × 10^-scale). */
      readonly unscaled: bigint;
      readonly scale: number;
      readonly format: string;
    };

const MAX_INT64 = (1n << 63n) - 1n;
/** maxInt64Factors: the decimal digits that surely fit an int64. */
const MAX_INT64_FACTORS = 18;
const NANO = -9;

/** parseQuantityString: sign, the numeric text, integer and fraction digits, and the suffix. */
function split(text: string) {
  const match = /^([+-]?)(0*)([0-9]*)(?:\.([0-9]*))?(.*)$/.exec(text)!;
  const [, sign = '', , digits = '', fraction, suffix = ''] = match;
  // Leading zeros are dropped; no digits left is "0".
  const value = text.slice(0, text.length - suffix.length);
  return { positive: sign !== '-', value, num: digits || '0', denom: fraction ?? '', suffix };
}

/** The internals of the quantity Go parses from this text; undefined when Go would reject it. */
export function quantityInternals(text: string): QuantityInternals | undefined {
  if (text === '0') return { kind: 'int64', value: 0n, scale: 0, text: '0', format: 'DecimalSI' };
  if (text.length === 0) return undefined;
  const { positive, value, num, denom, suffix } = split(text);
  const meaning = interpretSuffix(suffix);
  if (meaning === undefined) return undefined;
  let precision: number;
  let scale = 0;
  let mantissa = 1n;
  if (meaning.format === 'BinarySI') {
    if (meaning.exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(meaning.exponent);
      precision = 15 - num.length - Math.trunc(Math.fround(meaning.exponent * 3) / 10) - 1;
    } else {
      precision = -1;
    }
  } else {
    scale = meaning.exponent;
    precision = MAX_INT64_FACTORS - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const shifted = num + denom;
      const parsed = BigInt(shifted);
      if (parsed > MAX_INT64) return undefined;
      const product = parsed * mantissa;
      if (product <= MAX_INT64) {
        const result = positive ? product : -product;
        const canonical =
          meaning.format === 'BinarySI'
            ? meaning.exponent % 10 === 0 && (parsed & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return { kind: 'int64', value: result, scale, text: canonical ? text : '', format: meaning.format };
      }
    }
  }
  // The inf.Dec path: the numeric text as unscaled digits and a scale, the suffix applied, then
  // rounded up to nano units.
  const numeric = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(value);
  if (numeric === null || numeric[2]! + (numeric[3] ?? '') === '') return undefined;
  let unscaled = BigInt(`${numeric[2]}${numeric[3] ?? ''}` || '0');
  let decScale = (numeric[3] ?? '').length;
  if (meaning.base === 10) decScale -= meaning.exponent;
  else unscaled *= 1n << BigInt(meaning.exponent);
  let format = meaning.format;
  if (unscaled !== 0n) {
    const target = -NANO;
    if (decScale <= target) {
      unscaled *= pow10(target - decScale);
    } else {
      const divisor = pow10(decScale - target);
      unscaled = (unscaled + divisor - 1n) / divisor;
    }
    decScale = target;
  }
  if (format === 'BinarySI') {
    if (unscaled > MAX_INT64 * pow10(decScale < 0 ? 0 : decScale)) {
      unscaled = MAX_INT64;
      decScale = 0;
    }
    if (unscaled > 0n && unscaled < pow10(Math.max(decScale, 0))) format = 'DecimalSI';
  }
  return {
    kind: 'dec',
    unscaled: positive || unscaled === 0n ? unscaled : -unscaled,
    scale: decScale,
    format,
  };
}
