import { describe, expect, it } from 'vitest';
import { serveDiscovery } from '../../../src/apiserver/handlers/discovery-handler.js';
import type { ApiRequest, ApiResponse, RequestContext } from '../../../src/apiserver/http/types.js';
import { openAPIDocuments } from '../../../src/apiserver/openapi/documents.js';
import { ProtoMessage } from './proto-reader.js';

interface Answer {
  code?: number;
  headers: Record<string, string>;
  body?: Buffer;
}

function get(headers: Record<string, string>): Answer {
  const answer: Answer = { headers: {} };
  const res = {
    writeHead(code: number, head: Record<string, string>) {
      answer.code = code;
      answer.headers = Object.fromEntries(Object.entries(head).map(([k, v]) => [k.toLowerCase(), v]));
    },
    end(body?: Buffer | string) {
      if (body !== undefined) answer.body = Buffer.from(body);
    },
  };
  const ctx: RequestContext = {
    req: {} as ApiRequest,
    res: res as unknown as ApiResponse,
    method: 'GET',
    path: '/openapi/v2',
    query: new URLSearchParams(),
    headers,
    user: { name: 'admin', groups: ['system:masters'] },
  };
  expect(serveDiscovery(ctx, '127.0.0.1:6443')).toBe(true);
  return answer;
}

const PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const json = openAPIDocuments().v2();

describe('GET /openapi/v2', () => {
  it('answers the protobuf Accept kubectl sends with the gnostic Document', () => {
    const answer = get({ accept: PROTOBUF });
    expect(answer.code).toBe(200);
    expect(answer.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect(answer.headers.etag).toBe(json.etag);
    expect(answer.headers.vary).toBe('Accept');
    expect(answer.headers['content-length']).toBe(String(answer.body!.length));
    const document = ProtoMessage.decode(answer.body!);
    expect(document.string(1)).toBe('2.0');
    expect(document.message(2).string(1)).toBe('Kubernetes');
  });

  it('answers 304 when If-None-Match carries the ETag', () => {
    const answer = get({ accept: PROTOBUF, 'if-none-match': json.etag });
    expect(answer.code).toBe(304);
    expect(answer.body).toBeUndefined();
    expect(get({ accept: 'application/json', 'if-none-match': json.etag }).code).toBe(304);
  });

  it('still serves JSON', () => {
    const answer = get({ accept: 'application/json' });
    expect(answer.code).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers.etag).toBe(json.etag);
    expect(answer.body!.equals(json.body)).toBe(true);
  });

  it('answers other media types with 406', () => {
    expect(() => get({ accept: 'application/yaml' })).toThrow(
      expect.objectContaining({ code: 406, reason: 'NotAcceptable' }),
    );
  });
});
