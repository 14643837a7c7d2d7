// grpc probes: grpc.health.v1.Health/Check on the pod IP and port, plaintext. The two messages
// are tiny, so they are encoded here by hand rather than from a .proto at run time.
import { Client, credentials, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { goDuration } from './go-text.js';
import { PROBE_USER_AGENT } from './http-probe.js';
import type { ProbeOutcome } from './outcome.js';

const CHECK_METHOD = '/grpc.health.v1.Health/Check';
const SERVING_STATUS = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];

/** grpc-go's names of status codes, as `rpc error: code = ... desc = ...` prints them. */
const CODE_NAMES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
];

function encodeVarint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return bytes;
}

/** HealthCheckRequest { string service = 1; } */
export function encodeHealthCheckRequest(service: string): Buffer {
  if (service === '') return Buffer.alloc(0);
  const text = Buffer.from(service, 'utf8');
  return Buffer.concat([Buffer.from([0x0a, ...encodeVarint(text.length)]), text]);
}

/** HealthCheckResponse { ServingStatus status = 1; }: the status number (0 when absent). */
export function decodeHealthCheckResponse(bytes: Buffer): number {
  let at = 0;
  const varint = (): number => {
    let value = 0;
    let shift = 0;
    for (;;) {
      const byte = bytes[at++];
      if (byte === undefined) throw new Error('truncated HealthCheckResponse');
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
      shift += 7;
    }
  };
  let serving = 0;
  while (at < bytes.length) {
    const key = varint();
    const wire = key & 7;
    if (key >>> 3 === 1 && wire === 0) serving = varint();
    else if (wire === 0) varint();
    else if (wire === 2) at += varint();
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else throw new Error(`unexpected wire type ${wire} in HealthCheckResponse`);
  }
  return serving;
}

export function runGrpcProbe(
  host: string,
  port: number,
  service: string,
  timeoutMs: number,
): Promise<ProbeOutcome> {
  const address = `${host}:${port}`;
  const within = goDuration(timeoutMs);
  const deadline = Date.now() + timeoutMs;
  const client = new Client(address, credentials.createInsecure(), {
    'grpc.primary_user_agent': PROBE_USER_AGENT,
  });
  const failure = (output: string): ProbeOutcome => ({ result: 'failure', output });
  return new Promise<ProbeOutcome>((resolve) => {
    client.waitForReady(deadline, (error) => {
      if (error) {
        resolve(
          failure(
            `timeout: failed to connect service "${address}" within ${within}: context deadline exceeded`,
          ),
        );
        return;
      }
      client.makeUnaryRequest(
        CHECK_METHOD,
        encodeHealthCheckRequest,
        decodeHealthCheckResponse,
        service,
        new Metadata(),
        { deadline },
        (callError: ServiceError | null, serving?: number) => {
          if (callError) {
            if (callError.code === status.UNIMPLEMENTED) {
              resolve(
                failure(
                  `error: this server does not implement the grpc health protocol (grpc.health.v1.Health): ${callError.details}`,
                ),
              );
            } else if (callError.code === status.DEADLINE_EXCEEDED) {
              resolve(failure(`timeout: health rpc did not complete within ${within}`));
            } else {
              const code = CODE_NAMES[callError.code] ?? `Code(${callError.code})`;
              resolve(
                failure(
                  `error: health rpc probe failed: rpc error: code = ${code} desc = ${callError.details}`,
                ),
              );
            }
            return;
          }
          if (serving !== 1) {
            resolve(
              failure(
                `service unhealthy (responded with "${SERVING_STATUS[serving ?? 0] ?? String(serving)}")`,
              ),
            );
            return;
          }
          resolve({ result: 'success', output: 'service is serving' });
        },
      );
    });
  }).finally(() => client.close());
}
