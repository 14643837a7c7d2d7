// Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource): `100m`, `1Gi`, `1e3`,
// `0.5`. Values are kept exactly as a decimal (unscaled × 10^exponent) so that comparisons and the
// canonical text match what kube-apiserver computes and stores.

/** How a quantity prints: `12e6`, `12Mi` (×2^20) or `12M` (×10^6). */
export type QuantityFormat = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

const SPLIT_PATTERN = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';

/** The message Kubernetes gives for text that is not a quantity. */
export const QUANTITY_FORMAT_ERROR = `quantities must match the regular expression '${SPLIT_PATTERN}'`;
export const QUANTITY_NUMERIC_ERROR = 'unable to parse numeric part of quantity';
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";

export class QuantityParseError extends Error {
  override name = 'QuantityParseError';
}

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
/** Anything finer than nano units is rounded up (away from zero) when parsed. */
const NANO_EXPONENT = -9;

/** What a quantity's suffix means: its base, exponent and the format it gives the quantity. */
export interface SuffixMeaning {
  readonly base: 2 | 10;
  readonly exponent: number;
  readonly format: QuantityFormat;
}

const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIXES: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

export function interpretSuffix(suffix: string): SuffixMeaning | undefined {
  if (Object.hasOwn(DECIMAL_SUFFIXES, suffix)) {
    return { base: 10, exponent: DECIMAL_SUFFIXES[suffix]!, format: 'DecimalSI' };
  }
  if (Object.hasOwn(BINARY_SUFFIXES, suffix)) {
    return { base: 2, exponent: BINARY_SUFFIXES[suffix]!, format: 'BinarySI' };
  }
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const digits = suffix.slice(1);
    // Go's strconv.ParseInt: optional sign, decimal digits, fits in int64; the exponent is then an int32.
    if (!/^[+-]?[0-9]+$/.test(digits)) return undefined;
    const parsed = BigInt(digits);
    if (parsed > MAX_INT64 || parsed < MIN_INT64) return undefined;
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: 'DecimalExponent' };
  }
  return undefined;
}

function decimalSuffix(exponent: number): string | undefined {
  for (const [suffix, value] of Object.entries(DECIMAL_SUFFIXES)) if (value === exponent) return suffix;
  return undefined;
}

function binarySuffix(exponent: number): string | undefined {
  for (const [suffix, value] of Object.entries(BINARY_SUFFIXES)) if (value === exponent) return suffix;
  return undefined;
}

interface SplitQuantity {
  positive: boolean;
  /** The numeric part as written, with its sign (what inf.Dec parses). */
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

// A hand-written scanner in the shape of Kubernetes' parseQuantityString, so odd inputs
// (`.5`, `5.`, `+0Mi`) land on the same side as there.
function splitQuantity(text: string): SplitQuantity {
  let positive = true;
  let pos = 0;
  const end = text.length;
  if (pos < end && (text[0] === '-' || text[0] === '+')) {
    positive = text[0] !== '-';
    pos++;
  }
  while (pos < end && text[pos] === '0') pos++;
  if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
  let i = pos;
  while (i < end && isDigit(text[i]!)) i++;
  let num = text.slice(pos, i);
  if (i >= end) return { positive, value: text, num, denom: '', suffix: '' };
  pos = i;
  if (num === '') num = '0';
  let denom = '';
  if (text[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(text[i]!)) i++;
    denom = text.slice(pos, i);
    if (i >= end) return { positive, value: text, num, denom, suffix: '' };
    pos = i;
  }
  const value = text.slice(0, pos);
  const suffixStart = pos;
  i = pos;
  while (i < end && 'eEinumkKMGTP'.includes(text[i]!)) i++;
  if (i >= end) return { positive, value, num, denom, suffix: text.slice(suffixStart) };
  pos = i;
  if (text[pos] === '-' || text[pos] === '+') pos++;
  i = pos;
  while (i < end && isDigit(text[i]!)) i++;
  if (i >= end) return { positive, value, num, denom, suffix: text.slice(suffixStart) };
  throw new QuantityParseError(QUANTITY_FORMAT_ERROR);
}

function isDigit(char: string): boolean {
  return char >= '0' && char <= '9';
}

/** 10^exponent for exponent ≥ 0. */
export function pow10(exponent: number): bigint {
  return 10n ** BigInt(exponent);
}

/** Exact decimal `unscaled × 10^exponent`, normalised so that `unscaled` has no trailing zeros. */
interface Decimal {
  unscaled: bigint;
  exponent: number;
}

function normalise(unscaled: bigint, exponent: number): Decimal {
  if (unscaled === 0n) return { unscaled: 0n, exponent: 0 };
  while (unscaled % 10n === 0n) {
    unscaled /= 10n;
    exponent++;
  }
  return { unscaled, exponent };
}

function compareDecimals(a: Decimal, b: Decimal): number {
  const exponent = Math.min(a.exponent, b.exponent);
  const x = a.unscaled * pow10(a.exponent - exponent);
  const y = b.unscaled * pow10(b.exponent - exponent);
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Rounds away from zero to a multiple of 10^exponent; tells whether that was exact. */
function roundUpTo(value: Decimal, exponent: number): { value: Decimal; exact: boolean } {
  if (value.exponent >= exponent) return { value, exact: true };
  const divisor = pow10(exponent - value.exponent);
  let quotient = value.unscaled / divisor;
  const exact = value.unscaled % divisor === 0n;
  if (!exact) quotient += value.unscaled > 0n ? 1n : -1n;
  return { value: normalise(quotient, exponent), exact };
}

function parseDecimalText(text: string): Decimal | undefined {
  const match = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(text);
  if (match === null) return undefined;
  const [, sign = '', whole = '', fraction = ''] = match;
  if (whole === '' && fraction === '') return undefined;
  const digits = BigInt(`${whole}${fraction}` || '0');
  return normalise(sign === '-' ? -digits : digits, -fraction.length);
}

export class Quantity {
  private constructor(
    private readonly amount: Decimal,
    /** The format the quantity prints in. */
    readonly format: QuantityFormat,
    /** The text as given, kept when Kubernetes keeps it (already canonical enough to round-trip). */
    private readonly given?: string,
  ) {}

  /** resource.ParseQuantity; throws a QuantityParseError with Kubernetes' message. */
  static parse(text: string): Quantity {
    if (text.length === 0) throw new QuantityParseError(QUANTITY_FORMAT_ERROR);
    if (text === '0') return new Quantity({ unscaled: 0n, exponent: 0 }, 'DecimalSI', text);
    const split = splitQuantity(text);
    const meaning = interpretSuffix(split.suffix);
    if (meaning === undefined) throw new QuantityParseError(QUANTITY_SUFFIX_ERROR);
    const fast = Quantity.parseSmall(text, split, meaning);
    if (fast !== undefined) return fast;

    const parsed = parseDecimalText(split.value);
    if (parsed === undefined) throw new QuantityParseError(QUANTITY_NUMERIC_ERROR);
    let amount =
      meaning.base === 10
        ? normalise(parsed.unscaled, parsed.exponent + meaning.exponent)
        : normalise(parsed.unscaled * (1n << BigInt(meaning.exponent)), parsed.exponent);
    const negative = amount.unscaled < 0n;
    if (negative) amount = { unscaled: -amount.unscaled, exponent: amount.exponent };
    amount = roundUpTo(amount, NANO_EXPONENT).value;
    let format = meaning.format;
    if (format === 'BinarySI') {
      if (compareDecimals(amount, { unscaled: MAX_INT64, exponent: 0 }) > 0) {
        amount = normalise(MAX_INT64, 0);
      }
      if (amount.unscaled !== 0n && compareDecimals(amount, { unscaled: 1n, exponent: 0 }) < 0) {
        format = 'DecimalSI';
      }
    }
    if (negative) amount = { unscaled: -amount.unscaled, exponent: amount.exponent };
    return new Quantity(amount, format);
  }

  // Kubernetes' int64 fast path: it decides whether the given text is kept verbatim.
  private static parseSmall(
    text: string,
    split: SplitQuantity,
    meaning: SuffixMeaning,
  ): Quantity | undefined {
    const { num, denom, positive } = split;
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
      precision = 18 - (num.length + denom.length);
    }
    if (precision < 0) return undefined;
    scale -= denom.length;
    if (scale < NANO_EXPONENT) return undefined;
    const shifted = num + denom;
    if (!/^[+-]?[0-9]+$/.test(shifted)) throw new QuantityParseError(QUANTITY_NUMERIC_ERROR);
    const value = BigInt(shifted);
    if (value > MAX_INT64) throw new QuantityParseError(QUANTITY_NUMERIC_ERROR);
    const product = value * mantissa;
    if (product > MAX_INT64) return undefined;
    const result = positive ? product : -product;
    let keep: boolean;
    if (meaning.format === 'BinarySI') {
      keep = meaning.exponent % 10 === 0 && (value & 7n) !== 0n;
    } else {
      keep = scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
    }
    return new Quantity(normalise(result, scale), meaning.format, keep ? text : undefined);
  }

  /** A quantity from a JSON value: a string, or a number as JSON writes it. */
  static fromJson(value: unknown): Quantity {
    if (typeof value === 'number') return Quantity.parse(String(value));
    if (typeof value === 'string') return Quantity.parse(value.trim());
    throw new QuantityParseError(QUANTITY_FORMAT_ERROR);
  }

  /** Like fromJson, but undefined instead of throwing. */
  static tryFromJson(value: unknown): Quantity | undefined {
    try {
      return Quantity.fromJson(value);
    } catch (error) {
      if (error instanceof QuantityParseError) return undefined;
      throw error;
    }
  }

  static fromInteger(value: bigint | number, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(normalise(BigInt(value), 0), format);
  }

  /** -1, 0 or 1. */
  sign(): number {
    return this.amount.unscaled === 0n ? 0 : this.amount.unscaled > 0n ? 1 : -1;
  }

  isZero(): boolean {
    return this.amount.unscaled === 0n;
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `other`. */
  cmp(other: Quantity): number {
    return compareDecimals(this.amount, other.amount);
  }

  equals(other: Quantity): boolean {
    return this.cmp(other) === 0;
  }

  /** Value rounded up to an integer (Quantity.Value). */
  value(): bigint {
    return this.scaledValue(0);
  }

  /** Value × 1000 rounded up (Quantity.MilliValue). */
  milliValue(): bigint {
    return this.scaledValue(-3);
  }

  /** The value in units of 10^exponent, rounded away from zero. */
  scaledValue(exponent: number): bigint {
    const rounded = roundUpTo(this.amount, exponent).value;
    return rounded.unscaled * pow10(rounded.exponent - exponent);
  }

  /** Quantity.RoundUp: rounds away from zero to a multiple of 10^exponent; the given text is dropped if that changed it. */
  roundUp(exponent: number): Quantity {
    const { value, exact } = roundUpTo(this.amount, exponent);
    return exact ? this : new Quantity(value, this.format);
  }

  add(other: Quantity): Quantity {
    const exponent = Math.min(this.amount.exponent, other.amount.exponent);
    const sum =
      this.amount.unscaled * pow10(this.amount.exponent - exponent) +
      other.amount.unscaled * pow10(other.amount.exponent - exponent);
    return new Quantity(normalise(sum, exponent), this.isZero() ? other.format : this.format);
  }

  /** The text kube-apiserver writes: the given text when kept, else the canonical form. */
  toString(): string {
    return this.given ?? this.canonical();
  }

  toJSON(): string {
    return this.toString();
  }

  /** The canonical form (Quantity.String() of a freshly computed quantity). */
  canonical(): string {
    if (this.isZero()) return '0';
    let format = this.format;
    if (format === 'BinarySI') {
      const small =
        compareDecimals(this.amount, { unscaled: -1024n, exponent: 0 }) > 0 &&
        compareDecimals(this.amount, { unscaled: 1024n, exponent: 0 }) < 0;
      if (small || !roundUpTo(this.amount, 0).exact) format = 'DecimalSI';
    }
    if (format === 'BinarySI') {
      let integer = this.value();
      let times = 0;
      // A zero amount was handled above, so the loop ends.
      while ((integer >= 1024n || integer <= -1024n) && integer % 1024n === 0n) {
        integer /= 1024n;
        times++;
      }
      return `${integer}${binarySuffix(times * 10) ?? ''}`;
    }
    let { unscaled, exponent } = this.amount;
    while (exponent % 3 !== 0) {
      unscaled *= 10n;
      exponent--;
    }
    if (format === 'DecimalExponent') return exponent === 0 ? `${unscaled}` : `${unscaled}e${exponent}`;
    // Kubernetes prints no suffix for exponents it has none for (beyond E).
    return `${unscaled}${decimalSuffix(exponent) ?? ''}`;
  }
}

/** Parses a quantity, returning the error message instead of throwing. */
export function parseQuantity(text: string): { quantity: Quantity } | { error: string } {
  try {
    return { quantity: Quantity.parse(text) };
  } catch (error) {
    if (error instanceof QuantityParseError) return { error: error.message };
    throw error;
  }
}
