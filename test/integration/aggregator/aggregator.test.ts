// kube-aggregator against an in-process control plane over real HTTPS: the Local APIServices of
// the built-in and CRD groups, APIService validation, the published request-header settings, and a
// tiny aggregated API server written here (HTTPS, trusting only the front-proxy CA) reached through
// a selectorless Service whose Endpoints name this host's own non-loopback address: proxying,
// the identity headers, the client certificate, discovery, the availability conditions and
// the failures (wrong CA, missing service, 5xx, slow server).
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TLSSocket, connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { createCertificateAuthority } from '../../../src/pki/certificate-authority.js';
import { issueServingCertificate } from '../../../src/pki/certificates.js';
import { type ClusterPki, ensureClusterPki } from '../../../src/pki/cluster-pki.js';
import { eventually } from '../../support/control-plane.js';
import { type Call, httpsCaller } from '../../support/https-call.js';

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const GROUP = 'wardle.example.com';
const VERSION = 'v1alpha1';
const NAME = `${VERSION}.${GROUP}`;

let controlPlane: RunningControlPlane;
let pki: ClusterPki;
let call: Call;
const stateDir = mkdtempSync(join(tmpdir(), 'tkube-aggregator-'));

/** What the aggregated server saw of the last request to a path. */
interface Seen {
  readonly headers: IncomingHttpHeaders;
  readonly clientSubject: string;
  readonly url: string;
}
let backend: Server;
let backendPort: number;
let backendAddress: string;
let caBundle: string;
const seen: Seen[] = [];
/** The server's behaviour per path prefix, switched by tests. */
let mode: 'ok' | 'fail' | 'slow' = 'ok';

function hostAddress(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === 'IPv4' && !address.internal) return address.address;
    }
  }
  throw new Error('no non-loopback IPv4 address on this host');
}

const RESOURCE_LIST = {
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: `${GROUP}/${VERSION}`,
  resources: [
    {
      name: 'flunders',
      singularName: 'flunder',
      namespaced: true,
      kind: 'Flunder',
      verbs: ['get', 'list', 'watch', 'create'],
    },
  ],
};

beforeAll(async () => {
  pki = await ensureClusterPki(join(stateDir, 'pki'));
  controlPlane = await startControlPlane({ stateDir, apiPort: 0 });
  call = httpsCaller(() => controlPlane.port, pki);
  const configMap = await eventually(async () => {
    const answer = await call(
      'GET',
      '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication',
    );
    return answer.status === 200 ? answer.json() : undefined;
  });
  const data = configMap.data as Record<string, string>;
  const servingCa = await createCertificateAuthority({ commonName: 'wardle-ca' });
  const serving = await issueServingCertificate(servingCa, {
    commonName: 'wardle',
    dnsNames: ['wardle.default.svc'],
  });
  caBundle = Buffer.from(servingCa.certificatePem).toString('base64');
  backendAddress = hostAddress();
  backend = createServer(
    {
      cert: serving.certificatePem,
      key: serving.privateKeyPem,
      // As an aggregated server's request-header authenticator: only the front-proxy CA.
      ca: data['requestheader-client-ca-file'],
      requestCert: true,
      rejectUnauthorized: true,
    },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      seen.push({ headers: req.headers, clientSubject: String(peer.subject?.CN ?? ''), url: req.url ?? '' });
      if (mode === 'fail') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('broken');
        return;
      }
      const answer = () => {
        const path = (req.url ?? '').split('?')[0];
        if (path === `/apis/${GROUP}/${VERSION}`) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(RESOURCE_LIST));
        } else if (path === `/apis/${GROUP}/${VERSION}/namespaces/default/flunders`) {
          res.writeHead(200, { 'content-type': 'application/json', 'x-backend': 'wardle' });
          res.end(JSON.stringify({ kind: 'FlunderList', apiVersion: `${GROUP}/${VERSION}`, items: [] }));
        } else {
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('not here');
        }
      };
      if (mode === 'slow') setTimeout(answer, 7_000);
      else answer();
    },
  );
  // An upgrade answered with 101, then an echo of the stream.
  backend.on('upgrade', (req, socket: TLSSocket) => {
    seen.push({
      headers: req.headers,
      clientSubject: String(socket.getPeerCertificate().subject?.CN ?? ''),
      url: req.url ?? '',
    });
    socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n');
    socket.pipe(socket);
  });
  backendPort = await new Promise<number>((resolve) => {
    backend.listen(0, backendAddress, () => resolve((backend.address() as { port: number }).port));
  });
}, 60_000);

afterAll(async () => {
  backend?.close();
  await controlPlane?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

function apiService(spec: Record<string, unknown>, name = NAME) {
  return { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name }, spec };
}

const SERVICE_SPEC = {
  group: GROUP,
  version: VERSION,
  groupPriorityMinimum: 2000,
  versionPriority: 200,
  service: { namespace: 'default', name: 'wardle', port: 443 },
};

async function availableOf(name: string) {
  const answer = await call('GET', `${APISERVICES}/${name}`);
  const conditions = (answer.json().status as { conditions?: Record<string, string>[] } | undefined)
    ?.conditions;
  return conditions?.find((c) => c.type === 'Available');
}

async function waitForReason(name: string, reason: string) {
  return eventually(async () => {
    const condition = await availableOf(name);
    return condition?.reason === reason ? condition : undefined;
  }, 20_000);
}

describe('Local APIServices', () => {
  it('lists every built-in group/version as Local and Available', async () => {
    const list = await eventually(async () => {
      const answer = await call('GET', APISERVICES);
      const items = answer.json().items as { metadata: { name: string }; spec: Record<string, unknown> }[];
      return items.some((item) => item.metadata.name === 'v1.') ? items : undefined;
    });
    const names = list.map((item) => item.metadata.name);
    for (const name of ['v1.', 'v1.apps', 'v1.apiregistration.k8s.io', 'v2.autoscaling', 'v1.autoscaling']) {
      expect(names).toContain(name);
    }
    const apps = list.find((item) => item.metadata.name === 'v1.apps')!;
    expect(apps.spec).toEqual({
      group: 'apps',
      version: 'v1',
      groupPriorityMinimum: 17800,
      versionPriority: 15,
    });
    expect(await waitForReason('v1.apps', 'Local')).toMatchObject({
      status: 'True',
      message: 'Local APIServices are always available',
    });
  });

  it('prints the Service and Available columns as kube-aggregator does', async () => {
    const answer = await call('GET', `${APISERVICES}/v1.apps`, undefined, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    const table = answer.json() as { columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] };
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(['Name', 'Service', 'Available', 'Age']);
    expect(table.rows[0]!.cells.slice(0, 3)).toEqual(['v1.apps', 'Local', 'True']);
  });

  it('follows CRD groups: created with the CRD, removed with it', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gizmos.agg.example.com' },
      spec: {
        group: 'agg.example.com',
        scope: 'Namespaced',
        names: { plural: 'gizmos', kind: 'Gizmo' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(
      201,
    );
    const created = await eventually(async () => {
      const answer = await call('GET', `${APISERVICES}/v1.agg.example.com`);
      return answer.status === 200 ? answer.json() : undefined;
    });
    expect(created.metadata).toMatchObject({
      labels: { 'kube-aggregator.kubernetes.io/automanaged': 'true' },
    });
    expect(created.spec).toEqual({
      group: 'agg.example.com',
      version: 'v1',
      groupPriorityMinimum: 1000,
      versionPriority: 100,
    });
    await call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.agg.example.com');
    await eventually(async () => {
      const answer = await call('GET', `${APISERVICES}/v1.agg.example.com`);
      return answer.status === 404 ? true : undefined;
    }, 20_000);
  });
});

describe('APIService validation', () => {
  it('refuses a name that is not version.group, and bad priorities', async () => {
    const answer = await call(
      'POST',
      APISERVICES,
      apiService(
        { group: GROUP, version: VERSION, groupPriorityMinimum: 0, versionPriority: 5000 },
        'v1.wrong.io',
      ),
    );
    expect(answer.status).toBe(422);
    const causes = (answer.json().details as { causes: { field: string; message: string }[] }).causes;
    expect(causes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          field: 'metadata.name',
          message: `Invalid value: "v1.wrong.io": must be \`spec.version+"."+spec.group\`: "${NAME}"`,
        }),
        expect.objectContaining({
          field: 'spec.groupPriorityMinimum',
          message: 'Invalid value: 0: must be positive and less than 20000',
        }),
        expect.objectContaining({
          field: 'spec.versionPriority',
          message: 'Invalid value: 5000: must be positive and less than 1000',
        }),
      ]),
    );
  });

  it('refuses a caBundle on a Local APIService and insecureSkipTLSVerify beside a caBundle', async () => {
    const local = await call(
      'POST',
      APISERVICES,
      apiService({
        group: GROUP,
        version: VERSION,
        groupPriorityMinimum: 1,
        versionPriority: 1,
        caBundle: 'AAAA',
      }),
    );
    expect(local.status).toBe(422);
    expect(local.json().message).toContain(
      'spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle',
    );
    const both = await call(
      'POST',
      APISERVICES,
      apiService({ ...SERVICE_SPEC, caBundle: 'AAAA', insecureSkipTLSVerify: true }),
    );
    expect(both.status).toBe(422);
    expect(both.json().message).toContain(
      'spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present',
    );
  });

  it('defaults the service port to 443', async () => {
    const answer = await call(
      'POST',
      `${APISERVICES}?dryRun=All`,
      apiService({ ...SERVICE_SPEC, service: { namespace: 'default', name: 'wardle' } }),
    );
    expect(answer.status).toBe(201);
    expect((answer.json().spec as { service: { port: number } }).service.port).toBe(443);
  });
});

describe('the request-header settings', () => {
  it('publishes kube-system/extension-apiserver-authentication as upstream does', async () => {
    const answer = await call(
      'GET',
      '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication',
    );
    const data = answer.json().data as Record<string, string>;
    expect(data['requestheader-allowed-names']).toBe('["front-proxy-client"]');
    expect(data['requestheader-username-headers']).toBe('["X-Remote-User"]');
    expect(data['requestheader-group-headers']).toBe('["X-Remote-Group"]');
    expect(data['requestheader-extra-headers-prefix']).toBe('["X-Remote-Extra-"]');
    expect(data['client-ca-file']).toContain('BEGIN CERTIFICATE');
    expect(data['requestheader-client-ca-file']).toContain('BEGIN CERTIFICATE');
    expect(data['requestheader-client-ca-file']).not.toBe(data['client-ca-file']);
  });
});

describe('a service-backed APIService', () => {
  it('reports ServiceNotFound, then ServicePortError, EndpointsNotFound and MissingEndpoints', async () => {
    expect((await call('POST', APISERVICES, apiService({ ...SERVICE_SPEC, caBundle }))).status).toBe(201);
    expect(await waitForReason(NAME, 'ServiceNotFound')).toMatchObject({
      status: 'False',
      message: 'service/wardle in "default" is not present',
    });
    const row = await call('GET', `${APISERVICES}/${NAME}`, undefined, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    expect((row.json().rows as { cells: unknown[] }[])[0]!.cells.slice(1, 3)).toEqual([
      'default/wardle',
      'False (ServiceNotFound)',
    ]);
    // Unavailable: 503 with upstream's plain-text answer.
    const unavailable = await call('GET', `/apis/${GROUP}/${VERSION}`);
    expect(unavailable.status).toBe(503);
    expect(unavailable.text).toBe('service unavailable\n');
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'wardle', namespace: 'default' },
      spec: { ports: [{ name: 'https', port: 8443, targetPort: backendPort }] },
    };
    expect((await call('POST', '/api/v1/namespaces/default/services', service)).status).toBe(201);
    expect(await waitForReason(NAME, 'ServicePortError')).toMatchObject({
      message: 'service/wardle in "default" is not listening on port 443',
    });
    const fixed = {
      ...service,
      spec: { ...service.spec, ports: [{ name: 'https', port: 443, targetPort: backendPort }] },
    };
    await call('PATCH', '/api/v1/namespaces/default/services/wardle', fixed, {
      'content-type': 'application/merge-patch+json',
    });
    expect(await waitForReason(NAME, 'EndpointsNotFound')).toMatchObject({
      message: 'cannot find endpoints for service/wardle in "default"',
    });
    const endpoints = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'wardle', namespace: 'default' },
      subsets: [
        { notReadyAddresses: [{ ip: backendAddress }], ports: [{ name: 'https', port: backendPort }] },
      ],
    };
    expect((await call('POST', '/api/v1/namespaces/default/endpoints', endpoints)).status).toBe(201);
    expect(await waitForReason(NAME, 'MissingEndpoints')).toMatchObject({
      message: 'endpoints for service/wardle in "default" have no addresses with port name "https"',
    });
    const ready = {
      ...endpoints,
      subsets: [{ addresses: [{ ip: backendAddress }], ports: endpoints.subsets[0]!.ports }],
    };
    expect((await call('PUT', '/api/v1/namespaces/default/endpoints/wardle', ready)).status).toBe(200);
    expect(await waitForReason(NAME, 'Passed')).toMatchObject({
      status: 'True',
      message: 'all checks passed',
    });
    // The discovery check asked as the aggregator, with the front-proxy client certificate.
    const check = seen.find((entry) => entry.headers['x-remote-user'] === 'system:kube-aggregator')!;
    expect(check.clientSubject).toBe('front-proxy-client');
    expect(check.url).toBe(`/apis/${GROUP}/${VERSION}`);
  }, 90_000);

  it('proxies requests with the caller in the front-proxy headers and none of its own', async () => {
    seen.length = 0;
    const answer = await call(
      'GET',
      `/apis/${GROUP}/${VERSION}/namespaces/default/flunders?limit=5`,
      undefined,
      {
        'x-remote-user': 'mallory',
        'x-remote-extra-scopes': 'admin',
      },
    );
    expect(answer.status).toBe(200);
    expect(answer.headers['x-backend']).toBe('wardle');
    expect(answer.json().kind).toBe('FlunderList');
    const request = seen.at(-1)!;
    expect(request.url).toBe(`/apis/${GROUP}/${VERSION}/namespaces/default/flunders?limit=5`);
    expect(request.clientSubject).toBe('front-proxy-client');
    expect(request.headers['x-remote-user']).toBe('kubernetes-admin');
    expect(request.headers['x-remote-group']).toBe('system:masters, system:authenticated');
    expect(request.headers.authorization).toBeUndefined();
    expect(request.headers['x-remote-extra-scopes']).toBeUndefined();
  });

  it('passes impersonated extras as X-Remote-Extra-* headers', async () => {
    seen.length = 0;
    const answer = await call('GET', `/apis/${GROUP}/${VERSION}/namespaces/default/flunders`, undefined, {
      'impersonate-user': 'jane',
      'impersonate-group': 'system:masters',
      'impersonate-extra-scopes.example.com%2Fkey': 'read',
    });
    expect(answer.status).toBe(200);
    const request = seen.at(-1)!;
    expect(request.headers['x-remote-user']).toBe('jane');
    expect(request.headers['x-remote-extra-scopes.example.com%2fkey']).toBe('read');
  });

  it('passes upgrades through, joined to the server with the identity headers', async () => {
    seen.length = 0;
    const socket = tlsConnect({
      host: '127.0.0.1',
      port: controlPlane.port,
      ca: pki.ca.certificatePem,
      cert: pki.admin.certificatePem,
      key: pki.admin.privateKeyPem,
      ALPNProtocols: ['http/1.1'],
      servername: 'localhost',
    });
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
    });
    socket.write(
      `GET /apis/${GROUP}/${VERSION}/namespaces/default/flunders/x/stream HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n`,
    );
    await eventually(async () => (received.includes('\r\n\r\n') ? true : undefined));
    expect(received.startsWith('HTTP/1.1 101')).toBe(true);
    socket.write('ping-through-the-aggregator');
    await eventually(async () => (received.includes('ping-through-the-aggregator') ? true : undefined));
    socket.destroy();
    const request = seen.at(-1)!;
    expect(request.url).toBe(`/apis/${GROUP}/${VERSION}/namespaces/default/flunders/x/stream`);
    expect(request.clientSubject).toBe('front-proxy-client');
    expect(request.headers['x-remote-user']).toBe('kubernetes-admin');
    expect(request.headers.upgrade).toBe('echo');
  });

  it('merges the group into /apis and serves /apis/<group> and /apis/<group>/<version>', async () => {
    const groups = (await call('GET', '/apis')).json().groups as {
      name: string;
      preferredVersion: unknown;
    }[];
    const wardle = groups.find((group) => group.name === GROUP);
    expect(wardle).toEqual({
      name: GROUP,
      versions: [{ groupVersion: `${GROUP}/${VERSION}`, version: VERSION }],
      preferredVersion: { groupVersion: `${GROUP}/${VERSION}`, version: VERSION },
    });
    // Priority 2000 puts it after the built-ins and before CRD groups (1000).
    expect(groups.findIndex((group) => group.name === GROUP)).toBeGreaterThan(
      groups.findIndex((group) => group.name === 'flowcontrol.apiserver.k8s.io'),
    );
    const group = await call('GET', `/apis/${GROUP}`);
    expect(group.json()).toMatchObject({ kind: 'APIGroup', name: GROUP });
    const resources = await call('GET', `/apis/${GROUP}/${VERSION}`);
    expect(resources.json()).toEqual(RESOURCE_LIST);
  });

  it('merges the version into aggregated discovery (apidiscovery.k8s.io/v2)', async () => {
    const answer = await call('GET', '/apis', undefined, {
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    expect(answer.headers['content-type']).toContain('apidiscovery.k8s.io');
    const items = answer.json().items as { metadata: { name: string }; versions: unknown[] }[];
    const wardle = items.find((item) => item.metadata.name === GROUP);
    expect(wardle?.versions).toEqual([
      {
        version: VERSION,
        freshness: 'Current',
        resources: [
          {
            resource: 'flunders',
            responseKind: { group: '', version: '', kind: 'Flunder' },
            scope: 'Namespaced',
            singularResource: 'flunder',
            verbs: ['get', 'list', 'watch', 'create'],
          },
        ],
      },
    ]);
    const names = items.map((item) => item.metadata.name);
    expect(names.indexOf(GROUP)).toBeGreaterThan(names.indexOf('flowcontrol.apiserver.k8s.io'));
  });

  it('answers 503 and reports FailedDiscoveryCheck when the server fails', async () => {
    mode = 'fail';
    try {
      const answer = await call('GET', `/apis/${GROUP}/${VERSION}/namespaces/default/flunders`);
      expect(answer.status).toBe(500);
      expect(answer.text).toBe('broken');
      const condition = await waitForReason(NAME, 'FailedDiscoveryCheck');
      const url = `https://${backendAddress}:${backendPort}/apis/${GROUP}/${VERSION}`;
      expect(condition.message).toBe(`failing or missing response from ${url}: bad status from ${url}: 500`);
      expect((await call('GET', `/apis/${GROUP}/${VERSION}`)).status).toBe(503);
    } finally {
      mode = 'ok';
    }
    await waitForReason(NAME, 'Passed');
  }, 60_000);

  it('gives up on a slow server after the discovery check timeout', async () => {
    mode = 'slow';
    try {
      const condition = await waitForReason(NAME, 'FailedDiscoveryCheck');
      expect(condition.message).toContain('context deadline exceeded');
    } finally {
      mode = 'ok';
    }
    await waitForReason(NAME, 'Passed');
  }, 60_000);

  it('fails verification against the wrong CA', async () => {
    const other = await createCertificateAuthority({ commonName: 'other-ca' });
    const wrong = Buffer.from(other.certificatePem).toString('base64');
    await call(
      'PATCH',
      `${APISERVICES}/${NAME}`,
      { spec: { caBundle: wrong } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    const condition = await waitForReason(NAME, 'FailedDiscoveryCheck');
    expect(condition.message).toMatch(/certificate/);
    expect((await call('GET', `/apis/${GROUP}/${VERSION}/namespaces/default/flunders`)).status).toBe(503);
    await call(
      'PATCH',
      `${APISERVICES}/${NAME}`,
      { spec: { caBundle } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    await waitForReason(NAME, 'Passed');
  }, 60_000);

  it('refuses callers RBAC does not allow before proxying', async () => {
    const answer = await call(
      'GET',
      `/apis/${GROUP}/${VERSION}/namespaces/default/flunders`,
      undefined,
      {},
      true,
    );
    expect(answer.status).toBe(403);
  });
});
