import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExecProbe } from '../../../src/agent/kubelet/prober/exec-probe.js';
import { canonicalHeaderName, runHttpProbe } from '../../../src/agent/kubelet/prober/http-probe.js';
import { httpProbeUrl, resolveContainerPort, runProbe } from '../../../src/agent/kubelet/prober/run-probe.js';
import { runTcpProbe } from '../../../src/agent/kubelet/prober/tcp-probe.js';
import type { Container } from '../../../src/api/types/core-v1.generated.js';

let server: Server;
let port: number;
let closedPort: number;

async function freePort(): Promise<number> {
  const probe = createTcpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port: free } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return free;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    switch (req.url) {
      case '/ok':
        return res.end('fine');
      case '/fail':
        res.writeHead(500);
        return res.end('broken inside');
      case '/redirect':
        res.writeHead(302, { location: '/ok' });
        return res.end();
      case '/away':
        res.writeHead(301, { location: `http://localhost:${port}/ok` });
        return res.end('moved');
      case '/loop':
        res.writeHead(302, { location: '/loop' });
        return res.end();
      case '/slow':
        return;
      case '/big':
        return res.end('x'.repeat(20_000));
      default:
        return res.end(JSON.stringify(req.headers));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  closedPort = await freePort();
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const url = (path: string, host = '127.0.0.1') => new URL(`http://${host}:${port}${path}`);

describe('httpGet probes', () => {
  it('succeed on 2xx with the body as output, and fail on 4xx/5xx without it', async () => {
    expect(await runHttpProbe({ url: url('/ok'), headers: [], timeoutMs: 1000 })).toEqual({
      result: 'success',
      output: 'fine',
    });
    expect(await runHttpProbe({ url: url('/fail'), headers: [], timeoutMs: 1000 })).toEqual({
      result: 'failure',
      output: 'HTTP probe failed with statuscode: 500',
    });
  });

  it('follow redirects on the same host and stop with a warning at another host', async () => {
    expect(await runHttpProbe({ url: url('/redirect'), headers: [], timeoutMs: 1000 })).toEqual({
      result: 'success',
      output: 'fine',
    });
    expect(await runHttpProbe({ url: url('/away'), headers: [], timeoutMs: 1000 })).toEqual({
      result: 'warning',
      output: 'Probe terminated redirects, Response body: moved',
    });
    expect(await runHttpProbe({ url: url('/loop'), headers: [], timeoutMs: 2000 })).toEqual({
      result: 'failure',
      output: `Get "http://127.0.0.1:${port}/loop": stopped after 10 redirects`,
    });
  });

  it('send the kubelet headers, the probe headers canonicalised, and keep 10 KiB of body', async () => {
    const outcome = await runHttpProbe({
      url: url('/echo'),
      headers: [
        ['x-custom-header', 'one'],
        ['Accept', 'application/json'],
      ],
      timeoutMs: 1000,
    });
    const headers = JSON.parse(outcome.output) as Record<string, string>;
    expect(headers).toMatchObject({
      'user-agent': 'kube-probe/1.33',
      accept: 'application/json',
      'x-custom-header': 'one',
      connection: 'close',
    });
    expect(headers['accept-encoding']).toBeUndefined();
    const defaults = JSON.parse(
      (await runHttpProbe({ url: url('/echo'), headers: [], timeoutMs: 1000 })).output,
    );
    expect(defaults.accept).toBe('*/*');
    expect((await runHttpProbe({ url: url('/big'), headers: [], timeoutMs: 1000 })).output).toHaveLength(
      10 * 1024,
    );
    expect(canonicalHeaderName('x-forwarded-FOR')).toBe('X-Forwarded-For');
  });

  it('word timeouts and refused connections as Go does', async () => {
    expect(await runHttpProbe({ url: url('/slow'), headers: [], timeoutMs: 200 })).toEqual({
      result: 'failure',
      output: `Get "http://127.0.0.1:${port}/slow": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
    });
    const refused = new URL(`http://127.0.0.1:${closedPort}/healthz`);
    expect(await runHttpProbe({ url: refused, headers: [], timeoutMs: 1000 })).toEqual({
      result: 'failure',
      output: `Get "http://127.0.0.1:${closedPort}/healthz": dial tcp 127.0.0.1:${closedPort}: connect: connection refused`,
    });
  });

  it('address the pod IP and named ports by default', async () => {
    const container: Container = { name: 'c', image: 'x', ports: [{ name: 'http', containerPort: port }] };
    expect(resolveContainerPort('http', container)).toBe(port);
    expect(resolveContainerPort('8080', container)).toBe(8080);
    expect(() => resolveContainerPort('nope', container)).toThrow(
      'strconv.Atoi: parsing "nope": invalid syntax',
    );
    expect(() => resolveContainerPort(0, container)).toThrow('invalid port number: 0');
    expect(httpProbeUrl('HTTP', '10.0.0.1', 80, 'healthz?x=1').href).toBe('http://10.0.0.1/healthz?x=1');
    const outcome = await runProbe(
      { httpGet: { port: 'http', path: '/ok' }, timeoutSeconds: 1 },
      {
        container,
        containerId: 'id',
        podIP: '127.0.0.1',
        execSync: async () => ({ exitCode: 0, stdout: '', stderr: '' }),
      },
    );
    expect(outcome).toEqual({ result: 'success', output: 'fine' });
  });
});

describe('tcpSocket probes', () => {
  it('succeed when the port accepts and fail with the dial error otherwise', async () => {
    expect(await runTcpProbe('127.0.0.1', port, 1000)).toEqual({ result: 'success', output: '' });
    expect(await runTcpProbe('127.0.0.1', closedPort, 1000)).toEqual({
      result: 'failure',
      output: `dial tcp 127.0.0.1:${closedPort}: connect: connection refused`,
    });
  });
});

describe('exec probes', () => {
  it('succeed on exit 0 and fail otherwise, with stdout then stderr as output', async () => {
    const calls: unknown[] = [];
    const exec = async (id: string, cmd: string[], timeout: number) => {
      calls.push([id, cmd, timeout]);
      return { exitCode: cmd[0] === 'true' ? 0 : 1, stdout: 'out;', stderr: 'err' };
    };
    expect(await runExecProbe(exec, 'cid', ['true'], 2)).toEqual({ result: 'success', output: 'out;err' });
    expect(await runExecProbe(exec, 'cid', ['false'], 2)).toEqual({ result: 'failure', output: 'out;err' });
    expect(calls[0]).toEqual(['cid', ['true'], 2]);
  });

  it('fail with the kubelet text when the runtime reports a timeout, and rethrow other errors', async () => {
    const timedOut = async () => {
      throw Object.assign(new Error('deadline'), { code: 4 });
    };
    expect(await runExecProbe(timedOut, 'cid', ['sh', '-c', 'sleep 10'], 1)).toEqual({
      result: 'failure',
      output: 'command "sh -c sleep 10" timed out',
    });
    const broken = async () => {
      throw new Error('container not found');
    };
    await expect(runExecProbe(broken, 'cid', ['x'], 1)).rejects.toThrow('container not found');
  });
});
