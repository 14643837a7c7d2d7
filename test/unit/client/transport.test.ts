// The REST client against a scripted HTTP/2 server: what goes on the wire, reconnection after
// GOAWAY or a lost connection, the one retry of a refused stream, the concurrency bound, and
// watch streams.
import {
  constants,
  createServer,
  type Http2Server,
  connect as h2connect,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../../src/api/types/core-v1.generated.js';
import { CONFIG_MAPS, NODES } from '../../../src/client/resources.js';
import { ApiError, createRestClient, isForbidden, userAgent } from '../../../src/client/rest/index.js';
import type { Client, PatchType } from '../../../src/client/types.js';
import { duplexPair } from '../../../src/controlplane/duplex-pair.js';

interface Seen {
  headers: IncomingHttpHeaders;
  body: string;
}

type Handler = (stream: ServerHttp2Stream, seen: Seen) => void;

let server: Http2Server | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  client = undefined;
  server = undefined;
});

/** A client whose every session reaches a server answering with `handler`. */
function scripted(handler: Handler, maxConcurrentRequests?: number) {
  const sessions: ServerHttp2Session[] = [];
  server = createServer();
  server.on('session', (session: ServerHttp2Session) => sessions.push(session));
  server.on('stream', (stream, headers) => {
    // Resets the script makes surface here too.
    stream.on('error', () => {});
    let body = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      body += chunk;
    });
    stream.on('end', () => handler(stream, { headers, body }));
  });
  const s = server;
  client = createRestClient({
    identity: 'tester',
    component: 'unit',
    token: 'secret',
    maxConcurrentRequests,
    connect: () => {
      const [clientEnd, serverEnd] = duplexPair();
      s.emit('connection', serverEnd);
      return h2connect('http://loopback', { createConnection: () => clientEnd });
    },
  });
  return { client, sessions };
}

const json = (stream: ServerHttp2Stream, status: number, body: unknown) => {
  stream.respond({ ':status': status, 'content-type': 'application/json' });
  stream.end(JSON.stringify(body));
};

const configMap = (name: string): ConfigMap => ({ metadata: { name, namespace: 'ns' } });

describe('requests on the wire', () => {
  it('sends paths, sorted queries, credentials and JSON bodies as client-go does', async () => {
    const seen: Seen[] = [];
    const { client } = scripted((stream, request) => {
      seen.push(request);
      json(stream, 200, { kind: 'ConfigMap', metadata: { name: 'a' } });
    });
    const configMaps = client.resource<ConfigMap>(CONFIG_MAPS);
    await configMaps.list('ns', { labelSelector: 'app in (a,b),!x', limit: 0, resourceVersion: '0' });
    await configMaps.create(configMap('a'), { dryRun: true, fieldManager: 'm' });
    await configMaps.update(configMap('a'), { fieldValidation: 'Strict' });
    await configMaps.delete('ns', 'a', { propagationPolicy: 'Foreground', gracePeriodSeconds: 0 });
    await client.resource(NODES).get('', 'node-1');
    expect(seen.map((s) => `${s.headers[':method']} ${s.headers[':path']}`)).toEqual([
      'GET /api/v1/namespaces/ns/configmaps?labelSelector=app+in+%28a%2Cb%29%2C%21x&resourceVersion=0',
      'POST /api/v1/namespaces/ns/configmaps?dryRun=All&fieldManager=m',
      'PUT /api/v1/namespaces/ns/configmaps/a?fieldValidation=Strict',
      'DELETE /api/v1/namespaces/ns/configmaps/a',
      'GET /api/v1/nodes/node-1',
    ]);
    expect(seen[0]!.headers).toMatchObject({
      authorization: 'Bearer secret',
      accept: 'application/json',
      'user-agent': userAgent('unit'),
    });
    expect(seen[0]!.headers['content-type']).toBeUndefined();
    expect(seen[1]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[1]!.body)).toEqual(configMap('a'));
    expect(JSON.parse(seen[3]!.body)).toEqual({
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      gracePeriodSeconds: 0,
      propagationPolicy: 'Foreground',
    });
  });

  it('sends a request again after a 429 with Retry-After, as client-go does, and not without one', async () => {
    let calls = 0;
    const { client } = scripted((stream) => {
      calls++;
      if (calls === 1) {
        stream.respond({ ':status': 429, 'retry-after': '0', 'content-type': 'text/plain; charset=utf-8' });
        stream.end('Too many requests, please try again later.\n');
      } else if (calls === 2) json(stream, 201, configMap('a'));
      else json(stream, 429, { kind: 'Status', code: 429, reason: 'TooManyRequests', message: 'quota' });
    });
    const configMaps = client.resource<ConfigMap>(CONFIG_MAPS);
    await expect(configMaps.create(configMap('a'))).resolves.toMatchObject({ metadata: { name: 'a' } });
    expect(calls).toBe(2);
    await expect(configMaps.create(configMap('b'))).rejects.toBeInstanceOf(ApiError);
    expect(calls).toBe(3);
  });

  it('sends each patch type with its content type', async () => {
    const seen: Seen[] = [];
    const { client } = scripted((stream, request) => {
      seen.push(request);
      json(stream, 200, {});
    });
    const types: PatchType[] = ['json', 'merge', 'strategic', 'apply'];
    for (const type of types) {
      await client
        .resource(CONFIG_MAPS)
        .patch('ns', 'a', type, { data: {} }, { fieldManager: 'm', force: true });
    }
    expect(seen.map((s) => s.headers['content-type'])).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    expect(seen[3]!.headers[':path']).toBe('/api/v1/namespaces/ns/configmaps/a?fieldManager=m&force=true');
    expect(seen[3]!.body).toBe('{"data":{}}');
  });

  it('throws the Status of an error response as ApiError', async () => {
    const { client } = scripted((stream) =>
      json(stream, 403, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        reason: 'Forbidden',
        code: 403,
        message: 'configmaps "a" is forbidden: no',
      }),
    );
    const error = await client
      .resource(CONFIG_MAPS)
      .get('ns', 'a')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(isForbidden(error)).toBe(true);
    expect((error as ApiError).message).toBe('configmaps "a" is forbidden: no');
  });
});

describe('connection', () => {
  it('reconnects when the server said GOAWAY or the connection ended', async () => {
    const { client, sessions } = scripted((stream) => json(stream, 200, {}));
    const nodes = client.resource(NODES);
    await nodes.get('', 'a');
    sessions[0]!.close(); // GOAWAY
    await new Promise((resolve) => setTimeout(resolve, 20));
    await nodes.get('', 'b');
    expect(sessions).toHaveLength(2);
    sessions[1]!.destroy(); // the socket ends
    await new Promise((resolve) => setTimeout(resolve, 20));
    await nodes.get('', 'c');
    expect(sessions).toHaveLength(3);
  });

  it('sends a refused stream once more, and nothing else', async () => {
    let calls = 0;
    const { client } = scripted((stream, { headers }) => {
      calls++;
      if (calls === 1) return stream.close(constants.NGHTTP2_REFUSED_STREAM);
      if (headers[':path'] === '/api/v1/nodes/broken') return stream.close(constants.NGHTTP2_INTERNAL_ERROR);
      json(stream, 200, { metadata: { name: 'ok' } });
    });
    const nodes = client.resource(NODES);
    expect((await nodes.get('', 'ok')).metadata?.name).toBe('ok');
    expect(calls).toBe(2);
    await expect(nodes.get('', 'broken')).rejects.toThrow(/NGHTTP2_INTERNAL_ERROR/);
    expect(calls).toBe(3);
  });

  it('keeps at most maxConcurrentRequests calls in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const { client } = scripted((stream) => {
      most = Math.max(most, ++inFlight);
      setTimeout(() => {
        inFlight--;
        json(stream, 200, {});
      }, 5);
    }, 3);
    await Promise.all(Array.from({ length: 12 }, (_, i) => client.resource(NODES).get('', `n${i}`)));
    expect(most).toBe(3);
  });

  it('fails a response the server resets halfway instead of parsing the part that came', async () => {
    const { client } = scripted((stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/json' });
      stream.write(`{"kind":"ConfigMapList","items":[{"data":{"k":"${'x'.repeat(200_000)}`);
      // Cancelled while most of the body still waits for flow control, as a stopping server
      // cancels its streams: the client sees part of the body, then RST_STREAM CANCEL.
      stream.close(constants.NGHTTP2_CANCEL);
    });
    await expect(client.resource(CONFIG_MAPS).list('ns')).rejects.toThrow(
      'the response ended early (HTTP/2 error code 8)',
    );
  });

  it('fails calls in flight when the client closes', async () => {
    const { client } = scripted(() => {});
    const pending = expect(client.resource(NODES).get('', 'never')).rejects.toThrow('the client is closed');
    await new Promise((resolve) => setTimeout(resolve, 10));
    await client.close();
    await pending;
    await expect(client.resource(NODES).get('', 'x')).rejects.toThrow('the client is closed');
  });
});

describe('watch', () => {
  const event = (type: string, name: string) =>
    `${JSON.stringify({ type, object: { metadata: { name } } })}\n`;

  it('reads events split across writes and ends with the server', async () => {
    const seen: Seen[] = [];
    const { client } = scripted((stream, request) => {
      seen.push(request);
      stream.respond({ ':status': 200, 'content-type': 'application/json' });
      const text = event('ADDED', 'a') + event('MODIFIED', 'ü');
      stream.write(text.slice(0, 10));
      // Split inside the two-byte ü.
      const bytes = Buffer.from(text.slice(10));
      const cut = bytes.indexOf(0xc3) + 1;
      stream.write(bytes.subarray(0, cut));
      setTimeout(() => stream.end(bytes.subarray(cut)), 5);
    });
    const events = [];
    for await (const e of client
      .resource(CONFIG_MAPS)
      .watch('', { resourceVersion: '7', allowWatchBookmarks: true })) {
      if (e.type !== 'ERROR') events.push(`${e.type} ${e.object.metadata?.name}`);
    }
    expect(events).toEqual(['ADDED a', 'MODIFIED ü']);
    expect(seen[0]!.headers[':path']).toBe(
      '/api/v1/configmaps?allowWatchBookmarks=true&resourceVersion=7&watch=true',
    );
  });

  it('ends cleanly when the signal aborts, the connection drops or the client closes', async () => {
    const { client, sessions } = scripted((stream) => {
      stream.respond({ ':status': 200 });
      stream.write(event('ADDED', 'a'));
    });
    const drain = async (signal?: AbortSignal) => {
      const names: string[] = [];
      for await (const e of client.resource(CONFIG_MAPS).watch('ns', { signal })) {
        if (e.type !== 'ERROR') names.push(e.object.metadata!.name!);
      }
      return names;
    };
    const controller = new AbortController();
    const aborted = drain(controller.signal);
    setTimeout(() => controller.abort(), 20);
    expect(await aborted).toEqual(['a']);

    const dropped = drain();
    setTimeout(() => sessions[0]!.destroy(), 20);
    expect(await dropped).toEqual(['a']);

    const closed = drain();
    setTimeout(() => client.close(), 20);
    expect(await closed).toEqual(['a']);
  });

  it('ends without a parse error when the server resets the stream halfway through an event', async () => {
    const { client } = scripted((stream) => {
      stream.respond({ ':status': 200 });
      stream.write(event('ADDED', 'a') + event('ADDED', 'b').slice(0, 20));
      setTimeout(() => stream.close(constants.NGHTTP2_CANCEL), 10);
    });
    const names: string[] = [];
    for await (const e of client.resource(CONFIG_MAPS).watch('ns')) {
      if (e.type !== 'ERROR') names.push(e.object.metadata!.name!);
    }
    expect(names).toEqual(['a']);
  });

  it('throws an error response that comes before any event', async () => {
    const { client } = scripted((stream) =>
      json(stream, 410, {
        kind: 'Status',
        status: 'Failure',
        reason: 'Expired',
        code: 410,
        message: 'too old',
      }),
    );
    const iterate = async () => {
      for await (const _ of client.resource(CONFIG_MAPS).watch('ns')) return;
    };
    await expect(iterate()).rejects.toMatchObject({ code: 410, reason: 'Expired', message: 'too old' });
  });
});
