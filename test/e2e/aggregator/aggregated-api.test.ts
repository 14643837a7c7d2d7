// An aggregated API served by a pod on `tkube up --nodes 2`: a small HTTPS server (the host's node
// binary in an image of its own) that trusts only the front-proxy CA published in
// kube-system/extension-apiserver-authentication, behind a Service; its APIService becomes
// Available, and kubectl reaches it through the aggregator (the pod's IP dialed through its
// node's tunnel): `get --raw` of the group/version, a resource list, and `api-resources`.
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority } from '../../../src/pki/certificate-authority.js';
import { issueServingCertificate } from '../../../src/pki/certificates.js';
import { tkube } from '../../support/cli.js';
import { importHostBinariesImage } from '../docker/host-binaries-image.js';
import { type KubeletCluster, startKubeletCluster, waitFor } from '../kubelet/pods-support.js';

const IMAGE = 'tkube-test/node-host:1';
const GROUP = 'wardle.example.com';
const VERSION = 'v1alpha1';

/** The aggregated server: discovery and a FlunderList naming the user the front proxy vouched for. */
const SERVER = `
const https = require('node:https');
const fs = require('node:fs');
const dir = '/etc/wardle/';
const gv = '${GROUP}/${VERSION}';
const send = (res, code, body) => {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
https.createServer({
  cert: fs.readFileSync(dir + 'tls.crt'),
  key: fs.readFileSync(dir + 'tls.key'),
  ca: fs.readFileSync(dir + 'front-proxy-ca.crt'),
  requestCert: true,
  rejectUnauthorized: true,
}, (req, res) => {
  const cn = req.socket.getPeerCertificate().subject.CN;
  const user = req.headers['x-remote-user'];
  if (cn !== 'front-proxy-client' || !user) return send(res, 401, { kind: 'Status', code: 401 });
  const path = req.url.split('?')[0];
  if (path === '/apis/' + gv) {
    return send(res, 200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv, resources: [
      { name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'] },
    ] });
  }
  if (path === '/apis/' + gv + '/namespaces/default/flunders') {
    const name = 'seen-by-' + String(user).replace(/[^a-z0-9-]/g, '-');
    return send(res, 200, { kind: 'FlunderList', apiVersion: gv, metadata: {}, items: [
      { kind: 'Flunder', apiVersion: gv, metadata: { name, namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' } },
    ] });
  }
  send(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
}).listen(8443);
`;

let cluster: KubeletCluster;

async function kubectl(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, input);
  if (result.exitCode !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

beforeAll(async () => {
  [cluster] = await Promise.all([
    startKubeletCluster('ag', 2),
    importHostBinariesImage(IMAGE, [['bin/node', process.execPath]]),
  ]);
  const load = await tkube(['load', 'image', IMAGE, '--name', cluster.name], {
    TKUBE_HOME: cluster.home,
    HOME: dirname(cluster.home),
    PATH: process.env.PATH ?? '',
  });
  if (load.exitCode !== 0) throw new Error(`tkube load image failed: ${load.stderr}`);
}, 400_000);

afterAll(async () => {
  await cluster?.down();
}, 120_000);

describe('an aggregated API served by a pod', () => {
  it('is Available and reached through kubectl', async () => {
    const frontProxyCa = await kubectl([
      'get',
      'configmap',
      '-n',
      'kube-system',
      'extension-apiserver-authentication',
      '-o',
      'jsonpath={.data.requestheader-client-ca-file}',
    ]);
    const ca = await createCertificateAuthority({ commonName: 'wardle-ca' });
    const serving = await issueServingCertificate(ca, {
      commonName: 'wardle',
      dnsNames: ['wardle.default.svc'],
    });
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const manifests = [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'wardle', namespace: 'default' },
        data: {
          'tls.crt': b64(serving.certificatePem),
          'tls.key': b64(serving.privateKeyPem),
          'front-proxy-ca.crt': b64(frontProxyCa),
          'server.js': b64(SERVER),
        },
      },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'wardle', namespace: 'default', labels: { app: 'wardle' } },
        spec: {
          containers: [
            {
              name: 'server',
              image: IMAGE,
              imagePullPolicy: 'Never',
              command: ['/bin/node', '/etc/wardle/server.js'],
              volumeMounts: [{ name: 'wardle', mountPath: '/etc/wardle' }],
              readinessProbe: { tcpSocket: { port: 8443 }, periodSeconds: 1 },
            },
          ],
          volumes: [{ name: 'wardle', secret: { secretName: 'wardle' } }],
        },
      },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'wardle', namespace: 'default' },
        spec: { selector: { app: 'wardle' }, ports: [{ port: 443, targetPort: 8443 }] },
      },
      {
        apiVersion: 'apiregistration.k8s.io/v1',
        kind: 'APIService',
        metadata: { name: `${VERSION}.${GROUP}` },
        spec: {
          group: GROUP,
          version: VERSION,
          groupPriorityMinimum: 2000,
          versionPriority: 200,
          service: { namespace: 'default', name: 'wardle', port: 443 },
          caBundle: b64(ca.certificatePem),
        },
      },
    ];
    await kubectl(['apply', '-f', '-'], manifests.map((m) => JSON.stringify(m)).join('\n---\n'));
    const available = await waitFor(
      () => kubectl(['get', 'apiservice', `${VERSION}.${GROUP}`, '--no-headers']),
      (line) => /\sTrue\s/.test(line),
      120_000,
      'the APIService to be Available',
    );
    expect(available).toContain('default/wardle');
    const raw = JSON.parse(await kubectl(['get', '--raw', `/apis/${GROUP}/${VERSION}`]));
    expect(raw).toMatchObject({ kind: 'APIResourceList', groupVersion: `${GROUP}/${VERSION}` });
    expect(await kubectl(['get', `flunders.${GROUP}`, '-n', 'default'])).toContain(
      'seen-by-kubernetes-admin',
    );
    const resources = await kubectl(['api-resources', '--api-group', GROUP]);
    expect(resources).toMatch(/flunders\s+\S*\s*wardle\.example\.com\/v1alpha1\s+true\s+Flunder/);
  }, 200_000);
});
