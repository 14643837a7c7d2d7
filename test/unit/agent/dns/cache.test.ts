// The cache of forwarded answers (CoreDNS's `cache 30`): kept for the smallest TTL up to 30 s,
// negative answers for their SOA's negative TTL, truncated and failed ones not at all, TTLs
// counted down on reuse, the oldest entry making room when full.

import type { Answer } from 'dns-packet';
import * as packet from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { AnswerCache } from '../../../../src/agent/dns/cache.js';

const question = { name: 'www.example.com', type: 'A' as const };

function response(options: {
  rcode?: number;
  answers?: Answer[];
  authorities?: Answer[];
  truncated?: boolean;
}): Buffer {
  const raw = packet.encode({
    type: 'response',
    id: 7,
    flags:
      packet.RECURSION_AVAILABLE | (options.truncated ? packet.TRUNCATED_RESPONSE : 0) | (options.rcode ?? 0),
    questions: [question],
    answers: options.answers ?? [],
    authorities: options.authorities ?? [],
  });
  return raw;
}

const a = (ttl: number, data: string): Answer => ({
  type: 'A',
  name: 'www.example.com',
  ttl,
  class: 'IN',
  data,
});
const soa = (ttl: number, minimum: number): Answer => ({
  type: 'SOA',
  name: 'example.com',
  ttl,
  class: 'IN',
  data: {
    mname: 'ns.example.com',
    rname: 'host.example.com',
    serial: 1,
    refresh: 1,
    retry: 1,
    expire: 1,
    minimum,
  },
});

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('answer cache', () => {
  it('keeps a positive answer for its smallest TTL, counting the TTLs down', () => {
    const time = clock();
    const cache = new AnswerCache(30, 100, time.now);
    cache.store(question, response({ answers: [a(20, '192.0.2.1'), a(10, '192.0.2.2')] }));
    time.advance(4_000);
    const hit = cache.lookup({ name: 'WWW.example.com', type: 'A' });
    expect(hit?.rcode).toBe(0);
    expect(hit?.response.answers?.map((record) => ('ttl' in record ? record.ttl : undefined))).toEqual([
      16, 6,
    ]);
    time.advance(6_000);
    expect(cache.lookup(question)).toBeUndefined();
    expect(cache.lookup({ name: 'www.example.com', type: 'AAAA' })).toBeUndefined();
  });

  it('keeps nothing longer than 30 s', () => {
    const time = clock();
    const cache = new AnswerCache(30, 100, time.now);
    cache.store(question, response({ answers: [a(3600, '192.0.2.1')] }));
    time.advance(29_000);
    expect(cache.lookup(question)).toBeDefined();
    time.advance(1_000);
    expect(cache.lookup(question)).toBeUndefined();
  });

  it('keeps NXDOMAIN and NODATA for the SOA negative TTL; not without an SOA, nor truncated or SERVFAIL answers', () => {
    const time = clock();
    const cache = new AnswerCache(30, 100, time.now);
    cache.store(question, response({ rcode: 3, authorities: [soa(60, 5)] }));
    expect(cache.lookup(question)?.rcode).toBe(3);
    time.advance(5_000);
    expect(cache.lookup(question)).toBeUndefined();
    cache.store(question, response({ rcode: 3 }));
    cache.store(
      { name: 'b.example.com', type: 'A' },
      response({ truncated: true, answers: [a(60, '192.0.2.9')] }),
    );
    cache.store({ name: 'c.example.com', type: 'A' }, response({ rcode: 2 }));
    cache.store({ name: 'd.example.com', type: 'A' }, Buffer.from('garbage'));
    expect(cache.size).toBe(0);
  });

  it('makes room by dropping the oldest entry', () => {
    const cache = new AnswerCache(30, 2);
    for (const name of ['a.example.com', 'b.example.com', 'c.example.com']) {
      cache.store({ name, type: 'A' }, response({ answers: [a(60, '192.0.2.1')] }));
    }
    expect(cache.size).toBe(2);
    expect(cache.lookup({ name: 'a.example.com', type: 'A' })).toBeUndefined();
    expect(cache.lookup({ name: 'c.example.com', type: 'A' })).toBeDefined();
  });
});
