// What this controller last wrote to each EndpointSlice (k8s.io/endpointslice util's
// EndpointSliceTracker), so it can tell its own writes from others' in watch events and refuse to
// reconcile from a cache that has not caught up with them yet. Upstream compares generations;
// tkube's resourceVersions are the store's increasing revisions, so they order writes as well.
import type { EndpointSlice } from '../../api/types/discovery-v1.generated.js';
import { SERVICE_NAME_LABEL } from './slice-contents.js';

const DELETION_EXPECTED = 'deleted';

export class EndpointSliceTracker {
  /** Per service key, the last written resourceVersion of each slice (by UID), or a deletion mark. */
  private readonly byService = new Map<string, Map<string, string>>();

  /** The slice is tracked at all. */
  has(slice: EndpointSlice): boolean {
    return this.slicesOf(slice)?.has(slice.metadata?.uid ?? '') ?? false;
  }

  /** The event shows a change this controller did not make (or has not recorded yet). */
  shouldSync(slice: EndpointSlice): boolean {
    const written = this.slicesOf(slice)?.get(slice.metadata?.uid ?? '');
    return written === undefined || newer(slice.metadata?.resourceVersion ?? '', written);
  }

  /** The cached slices miss a write or a deletion this controller made. */
  staleSlices(serviceKey: string, slices: readonly EndpointSlice[]): boolean {
    const tracked = this.byService.get(serviceKey);
    if (!tracked) return false;
    const listed = new Set<string>();
    for (const slice of slices) {
      const uid = slice.metadata?.uid ?? '';
      listed.add(uid);
      const written = tracked.get(uid);
      if (written === undefined) continue;
      if (written === DELETION_EXPECTED || newer(written, slice.metadata?.resourceVersion ?? '')) return true;
    }
    for (const [uid, written] of tracked) {
      if (written !== DELETION_EXPECTED && !listed.has(uid)) return true;
    }
    return false;
  }

  update(slice: EndpointSlice): void {
    this.slicesFor(slice).set(slice.metadata?.uid ?? '', slice.metadata?.resourceVersion ?? '');
  }

  expectDeletion(slice: EndpointSlice): void {
    this.slicesFor(slice).set(slice.metadata?.uid ?? '', DELETION_EXPECTED);
  }

  /** Forgets a deleted slice; false when the deletion was not this controller's doing. */
  handleDeletion(slice: EndpointSlice): boolean {
    const slices = this.slicesOf(slice);
    const uid = slice.metadata?.uid ?? '';
    const written = slices?.get(uid);
    slices?.delete(uid);
    return written === undefined || written === DELETION_EXPECTED;
  }

  deleteService(serviceKey: string): void {
    this.byService.delete(serviceKey);
  }

  private slicesOf(slice: EndpointSlice): Map<string, string> | undefined {
    return this.byService.get(serviceKeyOf(slice));
  }

  private slicesFor(slice: EndpointSlice): Map<string, string> {
    const key = serviceKeyOf(slice);
    let slices = this.byService.get(key);
    if (!slices) {
      slices = new Map();
      this.byService.set(key, slices);
    }
    return slices;
  }
}

/** `namespace/service` of a slice, from its service-name label. */
export function serviceKeyOf(slice: EndpointSlice): string {
  return `${slice.metadata?.namespace ?? ''}/${slice.metadata?.labels?.[SERVICE_NAME_LABEL] ?? ''}`;
}

function newer(a: string, b: string): boolean {
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return BigInt(a) > BigInt(b);
  return a !== b;
}
