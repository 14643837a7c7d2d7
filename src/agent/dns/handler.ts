// One query in, one response out: the cluster zone answered from the cluster's records, anything
// else forwarded upstream, an ExternalName's target resolved after its CNAME (CoreDNS resolves it
// through its upstream the same way), every response cut to the client's UDP limit.
import { randomInt } from 'node:crypto';
import type { Answer } from 'dns-packet';
import * as packet from 'dns-packet';
import { AnswerCache } from './cache.js';
import type { ClusterRecords } from './cluster-records.js';
import {
  encodeResponse,
  headerOnlyResponse,
  parseQuery,
  type Query,
  RCODE,
  truncateResponse,
  udpSizeLimit,
} from './message.js';
import type { AnsweringPlugin, DnsMetrics } from './metrics.js';
import { type DnsQuestion, type ResolverSettings, resolve } from './resolver.js';
import type { Upstream } from './upstream.js';

export type Transport = 'udp' | 'tcp';

/** How many CNAMEs an ExternalName chain may follow before the rest is left to the client. */
const MAX_CHASE = 8;

export class DnsHandler {
  constructor(
    private readonly records: ClusterRecords,
    private readonly settings: ResolverSettings,
    private readonly upstream: Upstream,
    private readonly metrics?: DnsMetrics,
    private readonly cache = new AnswerCache(),
  ) {}

  /**
   * The response to the bytes of one message from a client of address family `family` (1 IPv4,
   * 2 IPv6); undefined when it is to be dropped.
   */
  async handle(raw: Buffer, transport: Transport, family: 1 | 2 = 1): Promise<Buffer | undefined> {
    const started = process.hrtime.bigint();
    let plugin: AnsweringPlugin = '';
    let type = 'other';
    const response = await this.respond(raw, transport, (answeredBy, questionType) => {
      plugin = answeredBy;
      type = questionType;
    });
    if (response && this.metrics) {
      this.metrics.observe({
        transport,
        family,
        type,
        rcode: response.readUInt16BE(2) & 0xf,
        plugin,
        seconds: Number(process.hrtime.bigint() - started) / 1e9,
      });
    }
    return response;
  }

  private async respond(
    raw: Buffer,
    transport: Transport,
    note: (plugin: AnsweringPlugin, type: string) => void,
  ): Promise<Buffer | undefined> {
    const parsed = parseQuery(raw);
    if ('drop' in parsed) return undefined;
    if ('reply' in parsed) return parsed.reply;
    const { query } = parsed;
    const limit = transport === 'udp' ? udpSizeLimit(query) : 65535;
    const klass = query.question.class ?? 'IN';
    const resolution =
      klass === 'IN' ? resolve(query.question, this.records, this.settings) : ({ kind: 'forward' } as const);
    note(resolution.kind === 'forward' ? 'forward' : 'kubernetes', query.question.type);
    if (resolution.kind === 'forward') return this.forward(raw, query, limit);
    const answers = [...resolution.answers];
    if (resolution.chase !== undefined)
      answers.push(...(await this.chase(resolution.chase, query.question.type)));
    return encodeResponse(
      query,
      {
        rcode: RCODE[resolution.rcode],
        authoritative: true,
        answers,
        authorities: resolution.authorities,
        additionals: resolution.additionals,
      },
      limit,
    );
  }

  private async forward(raw: Buffer, query: Query, limit: number): Promise<Buffer> {
    const cached = this.cache.lookup(query.question);
    if (cached) {
      return encodeResponse(
        query,
        {
          rcode: cached.rcode,
          authoritative: cached.response.flag_aa,
          answers: cached.response.answers ?? [],
          authorities: cached.response.authorities ?? [],
          additionals: (cached.response.additionals ?? []).filter((record) => record.type !== 'OPT'),
        },
        limit,
      );
    }
    try {
      const answer = await this.upstream.forward(raw);
      this.cache.store(query.question, answer);
      return truncateResponse(answer, query, limit);
    } catch {
      return headerOnlyResponse(raw, RCODE.SERVFAIL);
    }
  }

  /** The records of a CNAME's target: ours when it is in the zone, else the upstream's. */
  private async chase(target: string, type: DnsQuestion['type']): Promise<Answer[]> {
    const records: Answer[] = [];
    let name = target;
    for (let step = 0; step < MAX_CHASE; step++) {
      const local = resolve({ name, type }, this.records, this.settings);
      if (local.kind === 'answer') {
        records.push(...local.answers);
        if (local.chase === undefined) return records;
        name = local.chase;
        continue;
      }
      records.push(...(await this.upstreamAnswers(name, type)));
      return records;
    }
    return records;
  }

  private async upstreamAnswers(name: string, type: DnsQuestion['type']): Promise<Answer[]> {
    if (!this.upstream.configured) return [];
    const question = { name, type: type as packet.RecordType };
    const cached = this.cache.lookup(question);
    if (cached) return cached.response.answers ?? [];
    const query = packet.encode({
      type: 'query',
      id: randomInt(65536),
      flags: packet.RECURSION_DESIRED,
      questions: [question],
    });
    try {
      const answer = await this.upstream.forward(query);
      this.cache.store(question, answer);
      return packet.decode(answer).answers ?? [];
    } catch {
      return [];
    }
  }
}
