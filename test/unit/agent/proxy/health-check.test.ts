import { afterEach, describe, expect, it } from 'vitest';
import { healthCheckBody, ServiceHealthServer } from '../../../../src/agent/proxy/health-check.js';

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('ServiceHealthServer', () => {
  let server: ServiceHealthServer | undefined;
  afterEach(() => server?.close());

  it('answers 200 with the local endpoint count while this node has one, 503 without', async () => {
    const port = await freePort();
    server = new ServiceHealthServer(
      () => true,
      () => {},
      '127.0.0.1',
    );
    server.sync([{ namespace: 'ns1', name: 'lb', port, localEndpoints: 2 }]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const ok = await fetch(`http://127.0.0.1:${port}/`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/json');
    expect(ok.headers.get('x-load-balancing-endpoint-weight')).toBe('2');
    const body = await ok.text();
    expect(body).toBe(healthCheckBody('ns1', 'lb', 2, true));
    expect(JSON.parse(body)).toEqual({
      service: { namespace: 'ns1', name: 'lb' },
      localEndpoints: 2,
      serviceProxyHealthy: true,
    });
    server.sync([{ namespace: 'ns1', name: 'lb', port, localEndpoints: 0 }]);
    const none = await fetch(`http://127.0.0.1:${port}/`);
    expect(none.status).toBe(503);
    expect(((await none.json()) as { localEndpoints: number }).localEndpoints).toBe(0);
    server.sync([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  });
});
