// Upstream: k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing/queueset. One priority level's
// seats and queues: a flow is dealt a hand of queues (shuffle sharding) and waits in the shortest;
// a free seat goes to the waiting queue with the fewest requests executing, so each flow gets a
// fair share of the level however many requests one flow sends.
import { createHash } from 'node:crypto';

export interface QueuingConfiguration {
  readonly queues: number;
  readonly handSize: number;
  readonly queueLengthLimit: number;
}

/** Why a request was refused, as apiserver_flowcontrol_rejected_requests_total labels it. */
export type RejectionReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

export class RequestRejected extends Error {
  constructor(readonly reason: RejectionReason) {
    super(`request rejected: ${reason}`);
  }
}

interface Waiter {
  readonly queue: FairQueue;
  readonly seats: number;
  readonly resolve: (release: () => void) => void;
  readonly reject: (error: RequestRejected) => void;
  timer?: NodeJS.Timeout;
}

interface FairQueue {
  readonly waiting: Waiter[];
  executing: number;
}

/** Caps the hands remembered: flows are few in practice, but a user name is caller-chosen. */
const MAX_REMEMBERED_HANDS = 10_000;

export class QueueSet {
  /** Seats in use. */
  executing = 0;
  /** Requests waiting. */
  waiting = 0;
  private readonly queues: FairQueue[];
  private readonly hands = new Map<string, readonly number[]>();
  /** Where the search for the next queue to serve starts: rotates so ties are served in turn. */
  private next = 0;

  /** `queuing` undefined: the level rejects what it cannot run at once (LimitResponse Reject). */
  constructor(
    public concurrencyLimit: number,
    private readonly queuing: QueuingConfiguration | undefined,
    private readonly queueTimeoutMs: number,
  ) {
    const count = queuing ? Math.max(1, queuing.queues) : 1;
    this.queues = Array.from({ length: count }, () => ({ waiting: [], executing: 0 }));
  }

  /**
   * Waits for `seats` seats (a list's work estimate; 1 for most requests) for a request of
   * `flow`; resolves with the function that gives them back. `cancelled` registers a callback for
   * a client that goes away while waiting.
   */
  acquire(flow: string, seats: number, cancelled: (onCancel: () => void) => void): Promise<() => void> {
    const width = Math.max(1, Math.min(seats, this.concurrencyLimit));
    const queue = this.queues[this.pickQueue(flow)]!;
    if (this.waiting === 0 && this.executing + width <= this.concurrencyLimit) {
      return Promise.resolve(this.start(queue, width));
    }
    if (!this.queuing) return Promise.reject(new RequestRejected('concurrency-limit'));
    if (queue.waiting.length >= this.queuing.queueLengthLimit) {
      return Promise.reject(new RequestRejected('queue-full'));
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { queue, seats: width, resolve, reject };
      waiter.timer = setTimeout(() => this.abandon(waiter, 'time-out'), this.queueTimeoutMs);
      queue.waiting.push(waiter);
      this.waiting++;
      cancelled(() => this.abandon(waiter, 'cancelled'));
    });
  }

  /** Seats freed or added (a new limit): hands them to waiting requests, fairest first. */
  dispatch(): void {
    while (this.waiting > 0) {
      const queue = this.fairestWaitingQueue();
      const waiter = queue.waiting[0]!;
      // The fairest request waits for its seats rather than be overtaken by narrower ones.
      if (this.executing + Math.min(waiter.seats, this.concurrencyLimit) > this.concurrencyLimit) return;
      queue.waiting.shift();
      this.waiting--;
      clearTimeout(waiter.timer);
      waiter.resolve(this.start(queue, Math.min(waiter.seats, this.concurrencyLimit)));
    }
  }

  /** Refuses every waiting request (the level went away). */
  rejectAll(): void {
    for (const queue of this.queues) {
      for (const waiter of queue.waiting.splice(0)) {
        clearTimeout(waiter.timer);
        waiter.reject(new RequestRejected('time-out'));
      }
    }
    this.waiting = 0;
  }

  private start(queue: FairQueue, seats: number): () => void {
    this.executing += seats;
    queue.executing += seats;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.executing -= seats;
      queue.executing -= seats;
      this.dispatch();
    };
  }

  private abandon(waiter: Waiter, reason: RejectionReason): void {
    const at = waiter.queue.waiting.indexOf(waiter);
    if (at < 0) return;
    waiter.queue.waiting.splice(at, 1);
    this.waiting--;
    clearTimeout(waiter.timer);
    waiter.reject(new RequestRejected(reason));
  }

  private fairestWaitingQueue(): FairQueue {
    let best: FairQueue | undefined;
    let bestAt = 0;
    for (let step = 0; step < this.queues.length; step++) {
      const at = (this.next + step) % this.queues.length;
      const queue = this.queues[at]!;
      if (queue.waiting.length > 0 && (!best || queue.executing < best.executing)) {
        best = queue;
        bestAt = at;
      }
    }
    this.next = (bestAt + 1) % this.queues.length;
    return best!;
  }

  /** The shortest queue of the flow's hand. */
  private pickQueue(flow: string): number {
    if (this.queues.length === 1) return 0;
    let best = -1;
    let bestLength = Number.POSITIVE_INFINITY;
    for (const at of this.hand(flow)) {
      const queue = this.queues[at]!;
      const length = queue.waiting.length + queue.executing;
      if (length < bestLength) {
        best = at;
        bestLength = length;
      }
    }
    return best;
  }

  /** `handSize` distinct queues chosen by the flow's hash: the same flow always gets the same hand. */
  private hand(flow: string): readonly number[] {
    const known = this.hands.get(flow);
    if (known) return known;
    const size = Math.min(this.queuing!.handSize, this.queues.length);
    const digest = createHash('sha256').update(flow).digest();
    const remaining = Array.from({ length: this.queues.length }, (_, at) => at);
    const hand: number[] = [];
    for (let card = 0; card < size; card++) {
      const pick = digest.readUInt32BE((card * 4) % 32) % remaining.length;
      hand.push(remaining.splice(pick, 1)[0]!);
    }
    if (this.hands.size >= MAX_REMEMBERED_HANDS) this.hands.clear();
    this.hands.set(flow, hand);
    return hand;
  }
}
