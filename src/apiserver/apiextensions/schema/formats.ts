// The string formats custom-resource schemas validate (apiextensions-apiserver's
// pkg/apiserver/validation/formats.go supported list, checked as kube-openapi's strfmt registry
// checks them). Other formats (int32, int64, float, double, ...) are accepted in schemas but,
// as upstream, stripped before validation, so they constrain nothing.
import { parseCidrSloppy, parseIpSloppy } from '../../registry/validation/ip.js';

const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const BSON_OBJECT_ID = /^[0-9a-fA-F]{24}$/;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const HEX_COLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGB_COLOR =
  /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/;
const CREDIT_CARD =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const MAC = [
  /^([0-9a-fA-F]{2}[:-]){5}([0-9a-fA-F]{2})$/,
  /^([0-9a-fA-F]{2}[:-]){7}([0-9a-fA-F]{2})$/,
  /^([0-9a-fA-F]{2}[:-]){19}([0-9a-fA-F]{2})$/,
  /^([0-9a-fA-F]{4}\.){2}([0-9a-fA-F]{4})$/,
  /^([0-9a-fA-F]{4}\.){3}([0-9a-fA-F]{4})$/,
  /^([0-9a-fA-F]{4}\.){9}([0-9a-fA-F]{4})$/,
];
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// strfmt's accepted date-time layouts: RFC 3339 with optional fraction, 'T' or ' ', zone or none.
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2}|[+-]\d{4})?$/;
// Micro as U+00B5 or U+03BC (escaped: one character beyond Latin-1 in the control plane bundle
// makes V8 hold its whole source as a two-byte string, 2.3 MiB more; scripts/build checks it).
const GO_DURATION =
  /^[-+]?(\d+(\.\d*)?|\.\d+)(ns|us|µs|\u03bcs|ms|s|m|h)((\d+(\.\d*)?|\.\d+)(ns|us|µs|\u03bcs|ms|s|m|h))*$/;
const SCALA_DURATION =
  /^(\d+)\s*(ns|nano|nanos|nanosecond|nanoseconds|us|micro|micros|microsecond|microseconds|ms|milli|millis|millisecond|milliseconds|s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days|w|wk|wks|week|weeks)$/;
const ISBN10 = /^(?:[0-9]{9}X|[0-9]{10})$/;
const ISBN13 = /^(?:[0-9]{13})$/;

function validDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= days;
}

function isDate(text: string): boolean {
  const match = DATE.exec(text);
  return match !== null && validDate(Number(match[1]), Number(match[2]), Number(match[3]));
}

function isDateTime(text: string): boolean {
  const match = DATE_TIME.exec(text);
  if (match === null) return false;
  const [hour, minute, second] = [Number(match[4]), Number(match[5]), Number(match[6])];
  return (
    validDate(Number(match[1]), Number(match[2]), Number(match[3])) && hour < 24 && minute < 60 && second < 60
  );
}

/** govalidator.IsRequestURI: url.ParseRequestURI accepts an absolute URL or an absolute path. */
function isRequestUri(text: string): boolean {
  if (
    text === '' ||
    /\s/.test(text) ||
    [...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f)
  )
    return false;
  if (text.startsWith('/')) return true;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(text)) return false;
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

/** net/mail.ParseAddress, for the plain `local@domain` and `Name <local@domain>` forms. */
function isEmail(text: string): boolean {
  const angle = /^[^<>]*<([^<>]+)>$/.exec(text.trim());
  const address = angle ? angle[1]! : text.trim();
  return (
    /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9!#$%&'*+/=?^_`{|}~.\-[\]:]+$/.test(address) &&
    !address.startsWith('.') &&
    !address.split('@')[0]!.endsWith('.') &&
    !address.includes('..')
  );
}

function isIsbn10(text: string): boolean {
  const digits = text.replace(/[\s-]/g, '');
  if (!ISBN10.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(digits[i]);
  sum += digits[9] === 'X' ? 100 : 10 * Number(digits[9]);
  return sum % 11 === 0;
}

function isIsbn13(text: string): boolean {
  const digits = text.replace(/[\s-]/g, '');
  if (!ISBN13.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(digits[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(digits[12]);
}

function isCreditCard(text: string): boolean {
  const digits = text.replace(/[^0-9]+/g, '');
  if (!CREDIT_CARD.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let digit = Number(digits[i]);
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

function isHostname(text: string): boolean {
  if (!HOSTNAME.test(text) || text.length > 255) return false;
  return text.split('.').every((part) => Buffer.byteLength(part) <= 63);
}

const CHECKS: Readonly<Record<string, (text: string) => boolean>> = {
  bsonobjectid: (text) => BSON_OBJECT_ID.test(text),
  uri: isRequestUri,
  email: isEmail,
  hostname: isHostname,
  ipv4: (text) => parseIpSloppy(text) !== undefined && text.includes('.'),
  ipv6: (text) => parseIpSloppy(text) !== undefined && text.includes(':'),
  cidr: (text) => parseCidrSloppy(text) !== undefined,
  mac: (text) => MAC.some((pattern) => pattern.test(text)),
  uuid: (text) => UUID.test(text),
  uuid3: (text) => UUID3.test(text),
  uuid4: (text) => UUID4.test(text),
  uuid5: (text) => UUID5.test(text),
  isbn: (text) => isIsbn10(text) || isIsbn13(text),
  isbn10: isIsbn10,
  isbn13: isIsbn13,
  creditcard: isCreditCard,
  ssn: (text) => SSN.test(text),
  hexcolor: (text) => HEX_COLOR.test(text),
  rgbcolor: (text) => RGB_COLOR.test(text),
  byte: (text) => BASE64.test(text),
  password: () => true,
  date: isDate,
  duration: (text) => GO_DURATION.test(text) || SCALA_DURATION.test(text),
  datetime: isDateTime,
};

/**
 * The format name validation uses for a schema's `format`: go-openapi's normalization (dashes
 * dropped, so `date-time` is `datetime`) when supported, else '' (stripped, as upstream does).
 */
export function supportedFormat(format: unknown): string {
  if (typeof format !== 'string' || format === '') return '';
  const normalized = format.replaceAll('-', '');
  return Object.hasOwn(CHECKS, normalized) ? normalized : '';
}

/** Whether `text` is valid in a supported (normalized) format. */
export function matchesFormat(format: string, text: string): boolean {
  const check = CHECKS[format];
  return check === undefined || check(text);
}
