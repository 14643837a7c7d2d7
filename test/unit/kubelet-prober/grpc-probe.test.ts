import { Server, ServerCredentials, type ServerUnaryCall, type sendUnaryData, status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeHealthCheckResponse,
  encodeHealthCheckRequest,
  runGrpcProbe,
} from '../../../src/agent/kubelet/prober/grpc-probe.js';

/** HealthCheckRequest.service from the wire (field 1, length-delimited, short). */
function decodeService(bytes: Buffer): string {
  return bytes.length === 0 ? '' : bytes.subarray(2, 2 + bytes[1]!).toString('utf8');
}

let server: Server;
let port: number;
const userAgents: string[] = [];

beforeAll(async () => {
  server = new Server();
  server.register(
    '/grpc.health.v1.Health/Check',
    (call: ServerUnaryCall<string, number>, callback: sendUnaryData<number>) => {
      userAgents.push(String(call.metadata.get('user-agent')[0]));
      const service = call.request;
      if (service === 'ok') return callback(null, 1);
      if (service === 'sick') return callback(null, 2);
      if (service === 'slow') return;
      callback({ code: status.NOT_FOUND, details: 'unknown service' });
    },
    (serving: number) => Buffer.from([0x08, serving]),
    decodeService,
    'unary',
  );
  port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
});

afterAll(() => server.forceShutdown());

describe('grpc probes', () => {
  it('encode and decode the health messages', () => {
    expect(encodeHealthCheckRequest('')).toEqual(Buffer.alloc(0));
    expect(encodeHealthCheckRequest('db')).toEqual(Buffer.from([0x0a, 2, 0x64, 0x62]));
    expect(decodeHealthCheckResponse(Buffer.from([0x08, 1]))).toBe(1);
    expect(decodeHealthCheckResponse(Buffer.alloc(0))).toBe(0);
  });

  it('succeed when the service is SERVING and fail with the status otherwise', async () => {
    expect(await runGrpcProbe('127.0.0.1', port, 'ok', 1000)).toEqual({
      result: 'success',
      output: 'service is serving',
    });
    expect(userAgents[0]).toMatch(/^kube-probe\/1\.33/);
    expect(await runGrpcProbe('127.0.0.1', port, 'sick', 1000)).toEqual({
      result: 'failure',
      output: 'service unhealthy (responded with "NOT_SERVING")',
    });
    expect(await runGrpcProbe('127.0.0.1', port, 'other', 1000)).toEqual({
      result: 'failure',
      output: 'error: health rpc probe failed: rpc error: code = NotFound desc = unknown service',
    });
    expect(await runGrpcProbe('127.0.0.1', port, 'slow', 300)).toEqual({
      result: 'failure',
      output: 'timeout: health rpc did not complete within 300ms',
    });
  });

  it('fail when nothing answers within the timeout', async () => {
    const outcome = await runGrpcProbe('127.0.0.1', 1, '', 300);
    expect(outcome).toEqual({
      result: 'failure',
      output: 'timeout: failed to connect service "127.0.0.1:1" within 300ms: context deadline exceeded',
    });
  });
});
