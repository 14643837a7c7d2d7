// The DNS server on real sockets: UDP and TCP answers, the TC bit past 512 bytes (or the EDNS0
// size) with the full answer over TCP, malformed input answered FORMERR or dropped without harm,
// forwarding to an upstream (over TCP when its UDP answer is truncated), ExternalName targets
// resolved upstream, SERVFAIL when the upstream is gone.
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, createServer, type Server } from 'node:net';
import * as packet from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterRecords } from '../../../../src/agent/dns/cluster-records.js';
import { DnsHandler } from '../../../../src/agent/dns/handler.js';
import { DEFAULT_TTL } from '../../../../src/agent/dns/resolver.js';
import { DnsServer } from '../../../../src/agent/dns/server.js';
import { Upstream } from '../../../../src/agent/dns/upstream.js';

const HOST = '127.0.0.1';

/** A stand-in for the node's resolver: answers `*.example.com` A, truncating `big.example.com` over UDP. */
class FakeUpstream {
  udp: UdpSocket = createSocket('udp4');
  tcp: Server = createServer((socket) => {
    socket.on('data', (chunk) => {
      const response = this.answer(chunk.subarray(2), false);
      const prefix = Buffer.alloc(2);
      prefix.writeUInt16BE(response.length);
      socket.end(Buffer.concat([prefix, response]));
    });
  });
  udpQueries = 0;
  tcpQueries = 0;

  answer(raw: Buffer, udp: boolean): Buffer {
    if (udp) this.udpQueries++;
    else this.tcpQueries++;
    const query = packet.decode(raw);
    const question = query.questions![0]!;
    const big = question.name === 'big.example.com';
    const count = big ? 40 : 1;
    const answers = Array.from({ length: count }, (_, i) => ({
      type: 'A' as const,
      name: question.name,
      ttl: 60,
      data: `192.0.2.${i + 1}`,
    }));
    return packet.encode({
      type: 'response',
      id: query.id,
      flags: packet.RECURSION_AVAILABLE | (big && udp ? packet.TRUNCATED_RESPONSE : 0),
      questions: [question],
      answers: big && udp ? [] : question.name.endsWith('example.com') ? answers : [],
    });
  }

  async start(): Promise<number> {
    this.udp.on('message', (message, remote) =>
      this.udp.send(this.answer(message, true), remote.port, remote.address),
    );
    await new Promise<void>((resolve) => this.udp.bind(0, HOST, resolve));
    const port = this.udp.address().port;
    await new Promise<void>((resolve) => this.tcp.listen(port, HOST, resolve));
    return port;
  }

  async close(): Promise<void> {
    this.udp.close();
    await new Promise<void>((resolve) => this.tcp.close(() => resolve()));
  }
}

function cluster(): ClusterRecords {
  const records = new ClusterRecords('cluster.local');
  records.setNamespace({ metadata: { name: 'default' } });
  records.setService({
    metadata: { namespace: 'default', name: 'web' },
    spec: { clusterIP: '10.96.0.20', clusterIPs: ['10.96.0.20'] },
  });
  records.setService({
    metadata: { namespace: 'default', name: 'ext' },
    spec: { type: 'ExternalName', externalName: 'www.example.com' },
  });
  records.setService({
    metadata: { namespace: 'default', name: 'many' },
    spec: { clusterIP: 'None', clusterIPs: ['None'] },
  });
  records.setEndpointSlice({
    metadata: { namespace: 'default', name: 'many-1', labels: { 'kubernetes.io/service-name': 'many' } },
    addressType: 'IPv4',
    endpoints: Array.from({ length: 60 }, (_, i) => ({ addresses: [`10.244.0.${i + 1}`] })),
  });
  return records;
}

function query(name: string, type: packet.RecordType, options: { id?: number; edns?: number } = {}): Buffer {
  return packet.encode({
    type: 'query',
    id: options.id ?? 4242,
    flags: packet.RECURSION_DESIRED,
    questions: [{ name, type }],
    ...(options.edns && {
      additionals: [
        {
          type: 'OPT',
          name: '.',
          udpPayloadSize: options.edns,
          extendedRcode: 0,
          ednsVersion: 0,
          flags: 0,
          flag_do: false,
          options: [],
        },
      ],
    }),
  });
}

function udpExchange(port: number, message: Buffer, timeoutMs = 1000): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      resolve(undefined);
    }, timeoutMs);
    socket.on('message', (response) => {
      clearTimeout(timer);
      socket.close();
      resolve(response);
    });
    socket.send(message, port, HOST);
  });
}

/** Sends the messages in one TCP write; resolves with the responses in the order they came. */
function tcpExchange(port: number, messages: Buffer[], expected = messages.length): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: HOST, port });
    let received = Buffer.alloc(0);
    const responses: Buffer[] = [];
    socket.on('error', reject);
    socket.on('connect', () => {
      socket.write(
        Buffer.concat(
          messages.flatMap((message) => {
            const prefix = Buffer.alloc(2);
            prefix.writeUInt16BE(message.length);
            return [prefix, message];
          }),
        ),
      );
    });
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      while (received.length >= 2 && received.length >= 2 + received.readUInt16BE(0)) {
        responses.push(received.subarray(2, 2 + received.readUInt16BE(0)));
        received = received.subarray(2 + received.readUInt16BE(0));
      }
      if (responses.length === expected) {
        socket.destroy();
        resolve(responses);
      }
    });
  });
}

describe('DNS server', () => {
  const upstream = new FakeUpstream();
  let server: DnsServer;
  let port: number;

  beforeAll(async () => {
    const upstreamPort = await upstream.start();
    const handler = new DnsHandler(
      cluster(),
      { zone: 'cluster.local', ttl: DEFAULT_TTL, dnsService: { namespace: 'kube-system', name: 'kube-dns' } },
      new Upstream([{ host: HOST, port: upstreamPort }], 500),
    );
    server = new DnsServer({ host: HOST, port: 0, handler });
    await server.start();
    port = server.port;
  });

  afterAll(async () => {
    await server.close();
    await upstream.close();
  });

  it('answers over UDP: authoritative, the query id and question echoed', async () => {
    const response = packet.decode(
      (await udpExchange(port, query('web.default.svc.cluster.local', 'A', { id: 777 })))!,
    );
    expect(response).toMatchObject({
      id: 777,
      flag_qr: true,
      flag_aa: true,
      flag_rd: true,
      flag_ra: true,
      rcode: 'NOERROR',
    });
    expect(response.questions).toEqual([{ name: 'web.default.svc.cluster.local', type: 'A', class: 'IN' }]);
    expect(response.answers).toEqual([expect.objectContaining({ type: 'A', ttl: 30, data: '10.96.0.20' })]);
  });

  it('answers NXDOMAIN with the SOA in the authority section', async () => {
    const response = packet.decode((await udpExchange(port, query('nope.default.svc.cluster.local', 'A')))!);
    expect(response).toMatchObject({ rcode: 'NXDOMAIN', answers: [] });
    expect(response.authorities).toEqual([expect.objectContaining({ type: 'SOA', name: 'cluster.local' })]);
  });

  it('sets TC when the answer passes 512 bytes, and gives it whole over TCP or to an EDNS0 client', async () => {
    const truncatedRaw = (await udpExchange(port, query('many.default.svc.cluster.local', 'A')))!;
    expect(truncatedRaw.length).toBeLessThanOrEqual(512);
    const truncated = packet.decode(truncatedRaw);
    expect(truncated).toMatchObject({ flag_tc: true, authorities: [] });
    // As many as fit: one more A record (16 bytes, its name a pointer) would not.
    expect(truncated.answers!.length).toBeGreaterThan(5);
    expect(truncated.answers!.length).toBeLessThan(60);
    expect(truncatedRaw.length + 16).toBeGreaterThan(512);
    const [whole] = await tcpExchange(port, [query('many.default.svc.cluster.local', 'A')]);
    const decoded = packet.decode(whole!);
    expect(decoded.flag_tc).toBe(false);
    expect(decoded.answers).toHaveLength(60);
    const edns = await udpExchange(port, query('many.default.svc.cluster.local', 'A', { edns: 4096 }));
    expect(edns!.length).toBeGreaterThan(512);
    const ednsDecoded = packet.decode(edns!);
    expect(ednsDecoded.flag_tc).toBe(false);
    expect(ednsDecoded.answers).toHaveLength(60);
    expect(ednsDecoded.additionals).toEqual([expect.objectContaining({ type: 'OPT' })]);
  });

  it('answers pipelined TCP queries on one connection', async () => {
    const responses = await tcpExchange(port, [
      query('web.default.svc.cluster.local', 'A', { id: 1 }),
      query('nope.default.svc.cluster.local', 'A', { id: 2 }),
    ]);
    expect(responses.map((response) => packet.decode(response).id).sort()).toEqual([1, 2]);
  });

  it('answers garbage with FORMERR when it has a header, drops it otherwise, and keeps serving', async () => {
    const garbage = Buffer.from('1234ffffffffffffffffffffffffffffffffffff', 'hex');
    garbage.writeUInt16BE(0x0100, 2);
    const formerr = await udpExchange(port, garbage);
    expect(formerr!.readUInt16BE(0)).toBe(0x1234);
    expect(formerr!.readUInt16BE(2) & 0x800f).toBe(0x8001);
    expect(await udpExchange(port, Buffer.from('hello'), 300)).toBeUndefined();
    const response = query('web.default.svc.cluster.local', 'A');
    response.writeUInt16BE(response.readUInt16BE(2) | 0x8000, 2);
    expect(await udpExchange(port, response, 300)).toBeUndefined();
    const twoQuestions = packet.encode({
      type: 'query',
      id: 9,
      questions: [
        { name: 'a.cluster.local', type: 'A' },
        { name: 'b.cluster.local', type: 'A' },
      ],
    });
    expect(packet.decode((await udpExchange(port, twoQuestions))!)).toMatchObject({ rcode: 'FORMERR' });
    const notify = query('web.default.svc.cluster.local', 'A');
    notify.writeUInt16BE(notify.readUInt16BE(2) | (4 << 11), 2);
    expect(packet.decode((await udpExchange(port, notify))!)).toMatchObject({ rcode: 'NOTIMP' });
    for (let i = 0; i < 200; i++) {
      const random = Buffer.from(
        Array.from({ length: 12 + (i % 60) }, () => Math.floor(Math.random() * 256)),
      );
      random[2] = random[2]! & 0x07;
      await udpExchange(port, random, 50);
    }
    const [tcpGarbage] = await tcpExchange(port, [garbage]);
    expect(tcpGarbage!.readUInt16BE(2) & 0xf).toBe(1);
    expect(
      packet.decode((await udpExchange(port, query('web.default.svc.cluster.local', 'A')))!).answers,
    ).toHaveLength(1);
  });

  it('answers an unknown record type as NODATA', async () => {
    const response = packet.decode(
      (await udpExchange(port, query('web.default.svc.cluster.local', 'UNKNOWN_65' as packet.RecordType)))!,
    );
    expect(response).toMatchObject({ rcode: 'NOERROR', answers: [] });
  });

  it('forwards other names upstream, and over TCP when the upstream truncates', async () => {
    const forwarded = packet.decode((await udpExchange(port, query('www.example.com', 'A', { id: 31 })))!);
    expect(forwarded).toMatchObject({ id: 31, rcode: 'NOERROR' });
    expect(forwarded.answers).toEqual([expect.objectContaining({ data: '192.0.2.1' })]);
    const tcpBefore = upstream.tcpQueries;
    const [big] = await tcpExchange(port, [query('big.example.com', 'A')]);
    expect(packet.decode(big!).answers).toHaveLength(40);
    expect(upstream.tcpQueries).toBe(tcpBefore + 1);
    // Too big for a plain UDP client: truncated on the way back.
    expect(packet.decode((await udpExchange(port, query('big.example.com', 'A')))!)).toMatchObject({
      flag_tc: true,
    });
  });

  it('answers a repeated outside name from its cache, with its own id', async () => {
    await udpExchange(port, query('again.example.com', 'A', { id: 1 }));
    const asked = upstream.udpQueries;
    const again = packet.decode((await udpExchange(port, query('again.example.com', 'A', { id: 2 })))!);
    expect(again).toMatchObject({ id: 2, rcode: 'NOERROR' });
    expect(again.answers).toEqual([expect.objectContaining({ data: '192.0.2.1' })]);
    expect(upstream.udpQueries).toBe(asked);
  });

  it('resolves an ExternalName target through the upstream after its CNAME', async () => {
    const response = packet.decode((await udpExchange(port, query('ext.default.svc.cluster.local', 'A')))!);
    expect(
      response.answers!.map((answer) => `${answer.type} ${'data' in answer ? String(answer.data) : ''}`),
    ).toEqual(['CNAME www.example.com', 'A 192.0.2.1']);
  });

  it('answers SERVFAIL when the upstream does not answer', async () => {
    const handler = new DnsHandler(
      cluster(),
      { zone: 'cluster.local', ttl: DEFAULT_TTL, dnsService: { namespace: 'kube-system', name: 'kube-dns' } },
      new Upstream([{ host: HOST, port: 9 }], 200),
    );
    const lonely = new DnsServer({ host: HOST, port: 0, handler });
    await lonely.start();
    try {
      const response = packet.decode(
        (await udpExchange(lonely.port, query('www.example.com', 'A', { id: 5 })))!,
      );
      expect(response).toMatchObject({ id: 5, rcode: 'SERVFAIL' });
    } finally {
      await lonely.close();
    }
  });
});
