// DNS name compression of the agent's responses: smaller messages that decode to the same
// records, pointers at the earliest occurrence of a suffix, SRV targets left whole, and input the
// walker cannot follow returned unchanged.
import * as packet from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { compressNames } from '../../../../src/agent/dns/compression.js';

const NAME = 'web.default.svc.cluster.local';

function response(answers: packet.Answer[], authorities: packet.Answer[] = []): Buffer {
  return packet.encode({
    type: 'response',
    id: 42,
    flags: packet.AUTHORITATIVE_ANSWER,
    questions: [{ name: NAME, type: 'A', class: 'IN' }],
    answers,
    authorities,
  });
}

describe('compressNames', () => {
  it('points repeated owner names at the question name (offset 12)', () => {
    const full = response([
      { name: NAME, type: 'A', ttl: 30, data: '10.244.1.2' },
      { name: NAME, type: 'A', ttl: 30, data: '10.244.2.2' },
    ]);
    const compressed = compressNames(full);
    // Each answer's 31-byte name becomes a 2-byte pointer.
    expect(compressed.length).toBe(full.length - 2 * 29);
    const firstAnswer = 12 + NAME.length + 2 + 4;
    expect(compressed.readUInt16BE(firstAnswer)).toBe(0xc000 | 12);
    expect(packet.decode(compressed)).toEqual(packet.decode(full));
  });

  it('points a name at its longest known suffix, with case kept', () => {
    const full = response([
      { name: 'WEB.Default.svc.cluster.local', type: 'A', ttl: 30, data: '10.96.0.8' },
      { name: NAME, type: 'CNAME', ttl: 30, data: 'api.default.svc.cluster.local' },
      { name: 'api.default.svc.cluster.local', type: 'A', ttl: 30, data: '10.96.0.9' },
    ]);
    const compressed = compressNames(full);
    const decoded = packet.decode(compressed);
    expect(decoded).toEqual(packet.decode(full));
    // The differently cased owner shares only `svc.cluster.local` with the question.
    const upper = compressed.indexOf(Buffer.from('\x03WEB\x07Default\xc0', 'latin1'));
    expect(compressed.readUInt16BE(upper + 12)).toBe(0xc000 | (12 + 'web.default.'.length));
    // The CNAME's data is `api` and a pointer to `default.svc.cluster.local` in the question.
    const rdata = compressed.indexOf(Buffer.from('\x03api', 'latin1'));
    expect(compressed.readUInt16BE(rdata + 4)).toBe(0xc000 | (12 + 'web.'.length));
    // The A record's owner then points at the CNAME's data.
    expect(compressed.readUInt16BE(rdata + 6)).toBe(0xc000 | rdata);
  });

  it('compresses SOA, PTR and MX data and rewrites their RDATA lengths', () => {
    const full = response(
      [
        { name: NAME, type: 'PTR', ttl: 30, data: 'a.default.svc.cluster.local' },
        { name: NAME, type: 'MX', ttl: 30, data: { preference: 10, exchange: 'mx.svc.cluster.local' } },
      ],
      [
        {
          name: 'cluster.local',
          type: 'SOA',
          ttl: 30,
          data: {
            mname: 'ns.dns.cluster.local',
            rname: 'hostmaster.cluster.local',
            serial: 7,
            refresh: 7200,
            retry: 1800,
            expire: 86400,
            minimum: 30,
          },
        },
      ],
    );
    const compressed = compressNames(full);
    expect(compressed.length).toBeLessThan(full.length - 100);
    expect(packet.decode(compressed)).toEqual(packet.decode(full));
  });

  it('leaves SRV targets whole (RFC 2782) while compressing the owner name', () => {
    const target = 'web-0.web.default.svc.cluster.local';
    const full = response([
      { name: NAME, type: 'SRV', ttl: 30, data: { priority: 0, weight: 100, port: 80, target } },
    ]);
    const compressed = compressNames(full);
    expect(packet.decode(compressed)).toEqual(packet.decode(full));
    expect(compressed.length).toBe(full.length - 29);
    const wire = Buffer.from(`\x05web-0\x03web\x07default\x03svc\x07cluster\x05local\x00`, 'latin1');
    expect(compressed.subarray(compressed.length - wire.length)).toEqual(wire);
  });

  it('keeps OPT records and unknown types byte for byte', () => {
    const full = packet.encode({
      type: 'response',
      id: 1,
      questions: [{ name: NAME, type: 'TXT' }],
      answers: [{ name: NAME, type: 'TXT', ttl: 5, data: ['cluster.local', 'web.default'] }],
      additionals: [
        {
          type: 'OPT',
          name: '.',
          udpPayloadSize: 4096,
          extendedRcode: 0,
          ednsVersion: 0,
          flags: 0,
          flag_do: false,
          options: [],
        },
      ],
    });
    const compressed = compressNames(full);
    expect(compressed.length).toBe(full.length - 29);
    expect(packet.decode(compressed)).toEqual(packet.decode(full));
  });

  it('returns a message it cannot follow unchanged', () => {
    const full = response([{ name: NAME, type: 'A', ttl: 30, data: '10.244.1.2' }]);
    const cut = full.subarray(0, full.length - 3);
    expect(compressNames(cut)).toBe(cut);
    const alreadyCompressed = compressNames(response([{ name: NAME, type: 'A', ttl: 1, data: '10.0.0.1' }]));
    expect(compressNames(alreadyCompressed)).toBe(alreadyCompressed);
    const header = Buffer.alloc(5);
    expect(compressNames(header)).toBe(header);
    const trailing = Buffer.concat([full, Buffer.from([1, 2])]);
    expect(compressNames(trailing)).toBe(trailing);
  });
});
