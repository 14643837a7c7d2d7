// storage.APIObjectVersioner.ParseResourceVersion as the etcd3 store reports it: resourceVersions
// are unsigned 64-bit integers (strconv.ParseUint, base 10), refused with 400 "invalid resource
// version: resourceVersion: Invalid value: ...". Parsed exactly (as a bigint), never as a float.
import { goQuote } from '../../api/selectors/go-text.js';
import { badRequest } from '../status.js';

const UINT64_MAX = (1n << 64n) - 1n;

/** strconv.ParseUint(value, 10, 64)'s error text, or undefined when it parses. */
function parseUintError(value: string): string | undefined {
  if (!/^[0-9]+$/.test(value)) return `strconv.ParseUint: parsing ${goQuote(value)}: invalid syntax`;
  if (BigInt(value) > UINT64_MAX) return `strconv.ParseUint: parsing ${goQuote(value)}: value out of range`;
  return undefined;
}

/** A resourceVersion parameter's value ('' and '0' are 0), or upstream's 400 for one that is not a uint64. */
export function parseResourceVersion(value: string): bigint {
  if (value === '' || value === '0') return 0n;
  const error = parseUintError(value);
  if (error !== undefined) {
    throw badRequest(`invalid resource version: resourceVersion: Invalid value: ${goQuote(value)}: ${error}`);
  }
  return BigInt(value);
}
