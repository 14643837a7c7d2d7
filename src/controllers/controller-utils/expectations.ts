// Controller expectations (pkg/controller/controller_utils.go): after creating or deleting pods, a
// controller waits until its informer has seen those creations and deletions before it syncs again,
// so that a stale cache does not make it create or delete twice. Expectations expire after five
// minutes, in case a watch event was lost.

/** How long unmet expectations hold a controller back (ExpectationsTimeout). */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

interface Expectation {
  add: number;
  del: number;
  readonly timestamp: number;
}

/** Adds and deletes each controller (by key) still expects to observe. */
export class ControllerExpectations {
  private readonly expectations = new Map<string, Expectation>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The outstanding adds and deletes of a controller, if it has expectations. */
  get(key: string): { readonly add: number; readonly del: number } | undefined {
    const expectation = this.expectations.get(key);
    return expectation && { add: expectation.add, del: expectation.del };
  }

  /** True when the controller may sync: expectations met, expired, or never set. */
  satisfied(key: string): boolean {
    const expectation = this.expectations.get(key);
    if (expectation === undefined) return true;
    if (expectation.add <= 0 && expectation.del <= 0) return true;
    return this.now() - expectation.timestamp > EXPECTATIONS_TIMEOUT_MS;
  }

  /** Forgets a controller's expectations (it was deleted). */
  delete(key: string): void {
    this.expectations.delete(key);
  }

  /** Replaces the expectations of a controller. */
  set(key: string, add: number, del: number): void {
    this.expectations.set(key, { add, del, timestamp: this.now() });
  }

  expectCreations(key: string, adds: number): void {
    this.set(key, adds, 0);
  }

  expectDeletions(key: string, dels: number): void {
    this.set(key, 0, dels);
  }

  lower(key: string, add: number, del: number): void {
    const expectation = this.expectations.get(key);
    if (expectation === undefined) return;
    expectation.add -= add;
    expectation.del -= del;
  }

  raise(key: string, add: number, del: number): void {
    this.lower(key, -add, -del);
  }

  creationObserved(key: string): void {
    this.lower(key, 1, 0);
  }

  deletionObserved(key: string): void {
    this.lower(key, 0, 1);
  }
}

/**
 * Expectations that remember which pods (by `namespace/name`) a controller deleted, so that a pod
 * seen first with a deletionTimestamp and then as deleted counts once
 * (UIDTrackingControllerExpectations).
 */
export class UidTrackingExpectations {
  readonly counts: ControllerExpectations;
  private readonly deleting = new Map<string, Set<string>>();

  constructor(now: () => number = Date.now) {
    this.counts = new ControllerExpectations(now);
  }

  satisfied(key: string): boolean {
    return this.counts.satisfied(key);
  }

  expectCreations(key: string, adds: number): void {
    this.counts.expectCreations(key, adds);
  }

  creationObserved(key: string): void {
    this.counts.creationObserved(key);
  }

  /** Expects the deletion of exactly these pods. */
  expectDeletions(key: string, podKeys: readonly string[]): void {
    const pods = new Set(podKeys);
    this.deleting.set(key, pods);
    this.counts.expectDeletions(key, pods.size);
  }

  /** Counts the deletion of a pod the controller expected to delete (others are ignored). */
  deletionObserved(key: string, podKey: string): void {
    const pods = this.deleting.get(key);
    if (pods === undefined || !pods.delete(podKey)) return;
    this.counts.deletionObserved(key);
  }

  delete(key: string): void {
    this.counts.delete(key);
    this.deleting.delete(key);
  }
}
