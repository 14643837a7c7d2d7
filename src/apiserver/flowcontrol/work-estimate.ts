// Upstream: k8s.io/apiserver/pkg/util/flowcontrol/request (list_work_estimator.go). A list holds
// one seat per 100 objects it may have to read, so a client listing big collections gets fewer
// of them at once than one reading single objects.
import type { RequestInfo } from '../request-info.js';

const OBJECTS_PER_SEAT = 100;
const MAXIMUM_SEATS_LIMIT = 10;
/** How long a resource's object count is trusted (upstream refreshes its counts every minute). */
const COUNT_TTL_MS = 1_000;

/** Counts the stored objects of a resource (all namespaces), or undefined when unknown. */
export type ObjectCounter = (info: RequestInfo & { isResourceRequest: true }) => Promise<number | undefined>;

/** A level's largest width: 15 % of its nominal seats, at most 10. */
export function maximumSeats(nominalLimit: number): number {
  return Math.max(1, Math.min(MAXIMUM_SEATS_LIMIT, Math.ceil(nominalLimit * 0.15)));
}

export class ListWorkEstimator {
  private readonly counts = new Map<string, { count: number | undefined; at: number }>();

  constructor(private readonly countObjects: ObjectCounter) {}

  /** Seats a request needs, clamped to [1, maxSeats]: more than one only for lists. */
  async seats(info: RequestInfo, query: URLSearchParams, maxSeats: number): Promise<number> {
    if (!info.isResourceRequest || info.verb !== 'list') return 1;
    const stored = await this.count(info);
    // Unknown counts take the widest estimate, as upstream does when its count tracker fails.
    if (stored === undefined) return maxSeats;
    const limit = Number(query.get('limit') ?? '0');
    const selective = query.has('labelSelector') || query.has('fieldSelector');
    // A selector reads every object whatever the limit; a plain limited list reads `limit` of them.
    const objects = limit > 0 && !selective ? Math.min(limit, stored) : stored;
    return Math.max(1, Math.min(maxSeats, Math.ceil(objects / OBJECTS_PER_SEAT)));
  }

  private async count(info: RequestInfo & { isResourceRequest: true }): Promise<number | undefined> {
    const key = `${info.group}/${info.resource}`;
    const now = Date.now();
    const known = this.counts.get(key);
    if (known && now - known.at < COUNT_TTL_MS) return known.count;
    const count = await this.countObjects(info).catch(() => undefined);
    this.counts.set(key, { count, at: now });
    return count;
  }
}
