// HTTP/2 flow-control windows as Kubernetes' own ends size them: the REST client grants the
// server what client-go's transport grants (4 MiB per stream, 1 GiB per connection), and the
// apiserver grants its clients what kube-apiserver grants (256 KiB per stream, 250 streams' worth
// per connection). With HTTP/2's 64 KiB defaults a watch trailed a busy apiserver by thousands
// of events.
import { once } from 'node:events';
import { type ClientHttp2Session, connect, createServer, type ServerHttp2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../../src/api/types/core-v1.generated.js';
import { CONFIG_MAPS } from '../../../src/client/resources.js';
import { createRestClient } from '../../../src/client/rest/rest-client.js';
import { readKubeconfig } from '../../../src/client/transports.js';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

const MiB = 1024 * 1024;
let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster('flow-control');
}, 60_000);

afterAll(async () => {
  await cluster?.down();
});

/** Waits until `ready` holds, re-checking on the session's next frames (settings, window updates). */
async function until(ready: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('HTTP/2 flow control', () => {
  it('the REST client grants 4 MiB per stream and 1 GiB per connection, and reads a large body', async () => {
    const body = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big', namespace: 'default', resourceVersion: '1' },
      data: { payload: 'x'.repeat(3 * MiB) },
    });
    const sessions: ServerHttp2Session[] = [];
    const server = createServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(body);
    });
    server.on('session', (session) => sessions.push(session));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const client = createRestClient({
      identity: 'flow-control-test',
      component: 'test',
      connect: () => connect(`http://127.0.0.1:${port}`),
    });
    try {
      const read = await client.resource<ConfigMap>(CONFIG_MAPS).get('default', 'big');
      expect(read.data?.payload).toHaveLength(3 * MiB);
      const session = sessions[0]!;
      await until(() => session.remoteSettings.initialWindowSize === 4 * MiB);
      // What the server may still send on the connection: the 1 GiB window less the body sent.
      expect(session.state.remoteWindowSize).toBeGreaterThan(1000 * MiB);
    } finally {
      await client.close();
      server.close();
    }
  });

  it('the apiserver grants 256 KiB per stream and 250 streams of it per connection', async () => {
    const credentials = readKubeconfig(cluster.kubeconfig);
    const session: ClientHttp2Session = connect(credentials.server, {
      ca: credentials.ca,
      cert: credentials.cert,
      key: credentials.key,
    });
    try {
      await once(session, 'remoteSettings');
      expect(session.remoteSettings.initialWindowSize).toBe(256 * 1024);
      await until(() => (session.state.remoteWindowSize ?? 0) > 65_535);
      expect(session.state.remoteWindowSize).toBe(250 * 256 * 1024);
    } finally {
      session.close();
    }
  });
});
