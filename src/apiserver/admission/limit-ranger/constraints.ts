// The single checks of a LimitRange item, with the messages LimitRanger gives.

import type { Quantity } from '../../../api/quantity.js';
import type { ResourceList } from '../quota/resource-list.js';

/** Largest value whose milli value still fits an int64 (resource.MaxMilliValue). */
const MAX_MILLI_VALUE = ((1n << 63n) - 1n) / 1000n;

interface Compared {
  request: bigint;
  limit: bigint;
  enforced: bigint;
}

/** Compare in milli units when none would overflow, else in whole units. */
function compared(request: Quantity | undefined, limit: Quantity | undefined, enforced: Quantity): Compared {
  const whole = { request: request?.value() ?? 0n, limit: limit?.value() ?? 0n, enforced: enforced.value() };
  if (whole.request > MAX_MILLI_VALUE || whole.limit > MAX_MILLI_VALUE || whole.enforced > MAX_MILLI_VALUE) {
    return whole;
  }
  return {
    request: request?.milliValue() ?? 0n,
    limit: limit?.milliValue() ?? 0n,
    enforced: enforced.milliValue(),
  };
}

function lookup(list: ResourceList, name: string): Quantity | undefined {
  return Object.hasOwn(list, name) ? list[name] : undefined;
}

export function minConstraint(
  limitType: string,
  name: string,
  enforced: Quantity,
  requests: ResourceList,
  limits: ResourceList,
): string | undefined {
  const request = lookup(requests, name);
  const limit = lookup(limits, name);
  const values = compared(request, limit, enforced);
  const prefix = `minimum ${name} usage per ${limitType} is ${enforced.toString()}`;
  if (request === undefined) return `${prefix}.  No request is specified`;
  if (values.request < values.enforced) return `${prefix}, but request is ${request.toString()}`;
  if (limit !== undefined && values.limit < values.enforced)
    return `${prefix}, but limit is ${limit.toString()}`;
  return undefined;
}

export function maxConstraint(
  limitType: string,
  name: string,
  enforced: Quantity,
  requests: ResourceList,
  limits: ResourceList,
): string | undefined {
  const request = lookup(requests, name);
  const limit = lookup(limits, name);
  const values = compared(request, limit, enforced);
  const prefix = `maximum ${name} usage per ${limitType} is ${enforced.toString()}`;
  if (limit === undefined) return `${prefix}.  No limit is specified`;
  if (values.limit > values.enforced) return `${prefix}, but limit is ${limit.toString()}`;
  if (request !== undefined && values.request > values.enforced)
    return `${prefix}, but request is ${request.toString()}`;
  return undefined;
}

/** The max check for kinds without limits (claims): only the request counts. */
export function maxRequestConstraint(
  limitType: string,
  name: string,
  enforced: Quantity,
  requests: ResourceList,
): string | undefined {
  const request = lookup(requests, name);
  const values = compared(request, undefined, enforced);
  const prefix = `maximum ${name} usage per ${limitType} is ${enforced.toString()}`;
  if (request === undefined) return `${prefix}.  No request is specified`;
  if (values.request > values.enforced) return `${prefix}, but request is ${request.toString()}`;
  return undefined;
}

export function limitRequestRatioConstraint(
  limitType: string,
  name: string,
  enforced: Quantity,
  requests: ResourceList,
  limits: ResourceList,
): string | undefined {
  const request = lookup(requests, name);
  const limit = lookup(limits, name);
  const values = compared(request, limit, enforced);
  const prefix = `${name} max limit to request ratio per ${limitType} is ${enforced.toString()}`;
  if (request === undefined || values.request === 0n)
    return `${prefix}, but no request is specified or request is 0`;
  if (limit === undefined || values.limit === 0n) return `${prefix}, but no limit is specified or limit is 0`;
  const ratio = Number(values.limit) / Number(values.request);
  const enforcedWhole = enforced.value();
  const fitsMilli = enforcedWhole <= MAX_MILLI_VALUE;
  const observed = fitsMilli ? ratio * 1000 : ratio;
  const allowed = Number(fitsMilli ? enforced.milliValue() : enforcedWhole);
  // Go prints the ratio with %f: six decimals.
  if (observed > allowed) return `${prefix}, but provided ratio is ${ratio.toFixed(6)}`;
  return undefined;
}
