// The forwarded answers kept for reuse, as CoreDNS's `cache 30` in kind's Corefile keeps them:
// a positive answer for its smallest TTL, a negative one (NXDOMAIN, NODATA) for its SOA's
// negative TTL, neither longer than 30 s; served again with the TTLs counted down. Pods' search
// paths (ndots:5) make the same outside names asked again and again.

import type { Answer, DecodedPacket, Question, SoaAnswer } from 'dns-packet';
import * as packet from 'dns-packet';

/** CoreDNS's cache default capacity (per kind of answer; here for both). */
const DEFAULT_CAPACITY = 9984;
const NOERROR = 0;
const NXDOMAIN = 3;

interface Entry {
  readonly response: DecodedPacket;
  readonly rcode: number;
  readonly storedAt: number;
  readonly expiresAt: number;
}

function keyOf(question: Question): string {
  return `${question.name.toLowerCase()}/${question.type}/${question.class ?? 'IN'}`;
}

function ttlOf(record: Answer): number | undefined {
  return 'ttl' in record ? record.ttl : undefined;
}

/** How long a response may be kept, in seconds; 0 when not at all. */
function cacheSeconds(response: DecodedPacket, rcode: number, maxTtl: number): number {
  if (response.flag_tc) return 0;
  const answers = response.answers ?? [];
  if (rcode === NOERROR && answers.length > 0) {
    return Math.min(maxTtl, ...answers.map((record) => ttlOf(record) ?? 0));
  }
  if (rcode === NOERROR || rcode === NXDOMAIN) {
    // RFC 2308: the SOA's own TTL, bounded by its minimum field.
    const soa = (response.authorities ?? []).find((record): record is SoaAnswer => record.type === 'SOA');
    if (!soa) return 0;
    return Math.min(maxTtl, soa.ttl ?? 0, soa.data.minimum ?? 0);
  }
  return 0;
}

function withTtlLess(record: Answer, elapsed: number): Answer {
  const ttl = ttlOf(record);
  if (ttl === undefined || record.type === 'OPT') return record;
  return { ...record, ttl: Math.max(0, ttl - elapsed) } as Answer;
}

export class AnswerCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxTtl = 30,
    private readonly capacity = DEFAULT_CAPACITY,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** Keeps an upstream's response to `question` when it may be kept. */
  store(question: Question, raw: Buffer): void {
    let response: DecodedPacket;
    try {
      response = packet.decode(raw);
    } catch {
      return;
    }
    const rcode = raw.readUInt16BE(2) & 0xf;
    const seconds = cacheSeconds(response, rcode, this.maxTtl);
    if (seconds <= 0) return;
    const key = keyOf(question);
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) {
      // The oldest stored goes first (a Map iterates in insertion order).
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    const now = this.now();
    this.entries.set(key, { response, rcode, storedAt: now, expiresAt: now + seconds * 1000 });
  }

  /** The cached answer to `question` with its TTLs counted down, or undefined. */
  lookup(question: Question): { rcode: number; response: DecodedPacket } | undefined {
    const key = keyOf(question);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const now = this.now();
    if (now >= entry.expiresAt) {
      this.entries.delete(key);
      return undefined;
    }
    const elapsed = Math.floor((now - entry.storedAt) / 1000);
    const { response } = entry;
    return {
      rcode: entry.rcode,
      response: {
        ...response,
        answers: (response.answers ?? []).map((record) => withTtlLess(record, elapsed)),
        authorities: (response.authorities ?? []).map((record) => withTtlLess(record, elapsed)),
        additionals: (response.additionals ?? []).map((record) => withTtlLess(record, elapsed)),
      },
    };
  }
}
