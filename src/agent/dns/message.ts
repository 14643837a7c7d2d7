// DNS messages on the wire (RFC 1035 and RFC 6891), through dns-packet: reading a query with
// what a server must check first (a response, a bad header, an opcode or question count it does
// not serve), and writing a response, its names compressed, that fits the client's size limit
// (the TC bit otherwise).

import type { Answer, DecodedPacket, OptAnswer, Question } from 'dns-packet';
import * as packet from 'dns-packet';
import { compressNames } from './compression.js';

/** RFC 1035's UDP limit, for clients that send no EDNS0 record. */
export const CLASSIC_UDP_SIZE = 512;
/** The most an EDNS0 client is told to expect from us (and the most we accept its size as). */
export const MAX_UDP_SIZE = 4096;
const HEADER_LENGTH = 12;

export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
const QR = 0x8000;
const OPCODE_MASK = 0x7800;

export interface Query {
  readonly id: number;
  readonly flags: number;
  readonly question: Question;
  /** The client's EDNS0 record, if it sent one. */
  readonly edns?: OptAnswer;
  readonly packet: DecodedPacket;
}

/** A query to answer, an error response to send back at once, or nothing (drop it). */
export type ParsedQuery = { readonly query: Query } | { readonly reply: Buffer } | { readonly drop: true };

/** A response of only a header: the query's id, opcode and RD bit, and `rcode`. */
export function headerOnlyResponse(raw: Buffer, rcode: number): Buffer {
  const header = Buffer.alloc(HEADER_LENGTH);
  header.writeUInt16BE(raw.readUInt16BE(0), 0);
  const flags = raw.readUInt16BE(2);
  header.writeUInt16BE(
    QR | (flags & (OPCODE_MASK | packet.RECURSION_DESIRED)) | packet.RECURSION_AVAILABLE | rcode,
    2,
  );
  return header;
}

export function parseQuery(raw: Buffer): ParsedQuery {
  // Too short for a header, or itself a response: answering could feed a loop.
  if (raw.length < HEADER_LENGTH || (raw.readUInt16BE(2) & QR) !== 0) return { drop: true };
  const flags = raw.readUInt16BE(2);
  if ((flags & OPCODE_MASK) !== 0) return { reply: headerOnlyResponse(raw, RCODE.NOTIMP) };
  let decoded: DecodedPacket;
  try {
    decoded = packet.decode(raw);
  } catch {
    return { reply: headerOnlyResponse(raw, RCODE.FORMERR) };
  }
  const questions = decoded.questions ?? [];
  if (questions.length !== 1) return { reply: headerOnlyResponse(raw, RCODE.FORMERR) };
  const edns = (decoded.additionals ?? []).find((record): record is OptAnswer => record.type === 'OPT');
  return {
    query: { id: decoded.id ?? 0, flags, question: questions[0]!, packet: decoded, ...(edns && { edns }) },
  };
}

/** The largest UDP response the client takes: its EDNS0 size (at least 512, at most 4096), else 512. */
export function udpSizeLimit(query: Query): number {
  const size = query.edns?.udpPayloadSize ?? CLASSIC_UDP_SIZE;
  return Math.min(Math.max(size, CLASSIC_UDP_SIZE), MAX_UDP_SIZE);
}

export interface ResponseContent {
  readonly rcode: number;
  readonly authoritative: boolean;
  readonly answers: readonly Answer[];
  readonly authorities: readonly Answer[];
  readonly additionals: readonly Answer[];
}

function optRecord(): OptAnswer {
  return {
    type: 'OPT',
    name: '.',
    udpPayloadSize: MAX_UDP_SIZE,
    extendedRcode: 0,
    ednsVersion: 0,
    flags: 0,
    flag_do: false,
    options: [],
  };
}

/**
 * The response to `query`, at most `limit` bytes: when the records do not fit, the TC bit is set
 * so that the client asks again over TCP.
 */
export function encodeResponse(query: Query, content: ResponseContent, limit = 65535): Buffer {
  const flags =
    (query.flags & packet.RECURSION_DESIRED) |
    packet.RECURSION_AVAILABLE |
    (content.authoritative ? packet.AUTHORITATIVE_ANSWER : 0) |
    content.rcode;
  const opt = query.edns ? [optRecord()] : [];
  const full = encodeCompressed({
    type: 'response',
    id: query.id,
    flags,
    questions: [query.question],
    answers: [...content.answers],
    authorities: [...content.authorities],
    additionals: [...content.additionals, ...opt],
  });
  if (full.length <= limit) return full;
  // As many answers as fit, the rest of the sections left out (as CoreDNS truncates): clients
  // that do not retry over TCP still get part of the answer.
  const truncated = (count: number) => ({
    type: 'response' as const,
    id: query.id,
    flags: flags | packet.TRUNCATED_RESPONSE,
    questions: [query.question],
    answers: content.answers.slice(0, count),
    additionals: opt,
  });
  let fits = 0;
  let high = content.answers.length;
  while (fits < high) {
    const middle = Math.ceil((fits + high) / 2);
    if (encodeCompressed(truncated(middle)).length <= limit) fits = middle;
    else high = middle - 1;
  }
  return encodeCompressed(truncated(fits));
}

function encodeCompressed(message: packet.Packet): Buffer {
  return compressNames(packet.encode(message));
}

/** An upstream's response cut down for a UDP client whose limit it exceeds. */
export function truncateResponse(raw: Buffer, query: Query, limit: number): Buffer {
  if (raw.length <= limit) return raw;
  try {
    const decoded = packet.decode(raw);
    return encodeResponse(
      query,
      {
        rcode: raw.readUInt16BE(2) & 0xf,
        authoritative: decoded.flag_aa,
        answers: decoded.answers ?? [],
        authorities: decoded.authorities ?? [],
        additionals: (decoded.additionals ?? []).filter((record) => record.type !== 'OPT'),
      },
      limit,
    );
  } catch {
    return headerOnlyResponse(raw, RCODE.SERVFAIL);
  }
}
