// Network failures worded as Go's net package words them, for messages that must read like
// Kubernetes' (probe events, proxied requests): `dial tcp 10.0.0.1:80: connect: connection refused`.

const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connect: connection refused',
  EHOSTUNREACH: 'connect: no route to host',
  ENETUNREACH: 'connect: network is unreachable',
  ECONNRESET: 'read: connection reset by peer',
  EPIPE: 'write: broken pipe',
  ETIMEDOUT: 'i/o timeout',
};

/** A socket error of a connection to `address` (`host:port`) as Go's net.OpError prints it. */
export function dialErrorText(address: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const text = code ? ERRNO_TEXT[code] : undefined;
  if (text) return `dial tcp ${address}: ${text}`;
  return error instanceof Error ? error.message : String(error);
}
