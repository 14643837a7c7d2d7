// Admission and conversion webhooks served by a pod on `tkube up --nodes 2`: a webhook server
// written here (the host's node binary in an image of its own, its certificate made by the test
// and its CA in caBundle, as operator test suites do without cert-manager) behind a Service,
// reached by the apiserver through the node tunnel. A mutating webhook labels and annotates pods,
// a validating one denies by a label with its own message, matchConditions exclude a namespace,
// dry run goes through a sideEffects None webhook, a slow webhook fails at timeoutSeconds,
// failurePolicy Ignore and Fail part ways with the server scaled to 0, and a two-version CRD is
// converted by the same pod: written in one version, read, listed and watched in the other.
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority } from '../../../src/pki/certificate-authority.js';
import { issueServingCertificate } from '../../../src/pki/certificates.js';
import { tkube } from '../../support/cli.js';
import { importHostBinariesImage } from '../docker/host-binaries-image.js';
import { type KubeletCluster, startKubeletCluster, waitFor } from '../kubelet/pods-support.js';

const IMAGE = 'tkube-test/node-host:1';
const GROUP = 'hooks.e2e.tkube.dev';

/** The webhook server: AdmissionReviews on /mutate, /validate and /slow, ConversionReviews on /convert. */
const SERVER = `
const https = require('node:https');
const fs = require('node:fs');
const dir = '/etc/webhook/';
const review = (body, response) => ({
  apiVersion: body.apiVersion, kind: body.kind, response: { uid: body.request.uid, ...response },
});
const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64');
const handlers = {
  '/mutate': (body) => {
    const meta = body.request.object.metadata || {};
    const ops = [];
    if (!meta.labels) ops.push({ op: 'add', path: '/metadata/labels', value: {} });
    if (!meta.annotations) ops.push({ op: 'add', path: '/metadata/annotations', value: {} });
    ops.push({ op: 'add', path: '/metadata/labels/webhook-mutated', value: 'true' });
    ops.push({ op: 'add', path: '/metadata/annotations/e2e.tkube.dev~1seen-by', value: 'e2e-webhook' });
    return review(body, { allowed: true, patchType: 'JSONPatch', patch: b64(ops) });
  },
  '/validate': (body) => {
    const labels = (body.request.object.metadata || {}).labels || {};
    if (labels.deny === 'true')
      return review(body, { allowed: false, status: { code: 403, message: 'pods labelled deny=true are refused by the e2e webhook' } });
    return review(body, { allowed: true });
  },
  '/slow': async (body) => {
    await new Promise((resolve) => setTimeout(resolve, 6000));
    return review(body, { allowed: true });
  },
  '/convert': (body) => {
    const desired = body.request.desiredAPIVersion;
    const convertedObjects = body.request.objects.map((object) => {
      const spec = object.spec || {};
      if (desired.endsWith('/v2')) {
        const [host, port] = String(spec.hostPort || ':').split(':');
        return { ...object, apiVersion: desired, spec: { host, port } };
      }
      return { ...object, apiVersion: desired, spec: { hostPort: spec.host + ':' + spec.port } };
    });
    return review(body, { result: { status: 'Success' }, convertedObjects });
  },
};
https.createServer({ cert: fs.readFileSync(dir + 'tls.crt'), key: fs.readFileSync(dir + 'tls.key') }, (req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    const handler = handlers[req.url.split('?')[0]];
    if (!handler) { res.writeHead(404); res.end(); return; }
    const answer = await handler(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
  });
}).listen(8443);
`;

let cluster: KubeletCluster;
let caBundle: string;

async function kubectl(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, input);
  if (result.exitCode !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** kubectl that is expected to fail: its stderr. */
async function kubectlError(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, input);
  if (result.exitCode === 0) throw new Error(`kubectl ${args.join(' ')} succeeded: ${result.stdout}`);
  return result.stderr;
}

const apply = (objects: unknown[]) =>
  kubectl(['apply', '-f', '-'], objects.map((object) => JSON.stringify(object)).join('\n---\n'));

const service = (path: string) => ({
  service: { namespace: 'default', name: 'e2e-webhook', path, port: 443 },
  caBundle,
});

/** A pod that only has to exist (admission is what is tested). */
const pod = (namespace: string, name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace, labels },
  spec: {
    containers: [
      {
        name: 'c',
        image: IMAGE,
        imagePullPolicy: 'Never',
        command: ['/bin/node', '-e', 'setInterval(() => {}, 1e9)'],
      },
    ],
  },
});

/** Waits until the webhook Service's ready addresses (space-separated) satisfy `done`. */
function webhookEndpoints(done: (ips: string) => boolean, what: string): Promise<string> {
  const jsonpath = 'jsonpath={.subsets[*].addresses[*].ip}';
  const ips = async () =>
    (await kubectl(['get', 'endpoints', 'e2e-webhook', '-n', 'default', '-o', jsonpath])).trim();
  return waitFor(ips, done, 120_000, what);
}

const selected = { matchLabels: { 'e2e-webhooks': 'on' } };

/** A ValidatingWebhookConfiguration of one webhook on ConfigMap creates in the selected namespaces. */
function configMapValidation(name: string, webhook: Record<string, unknown>) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: [
      {
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        namespaceSelector: selected,
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        ...webhook,
      },
    ],
  };
}

beforeAll(async () => {
  [cluster] = await Promise.all([
    startKubeletCluster('cv-webhooks', 2),
    importHostBinariesImage(IMAGE, [['bin/node', process.execPath]]),
  ]);
  const load = await tkube(['load', 'image', IMAGE, '--name', cluster.name], {
    TKUBE_HOME: cluster.home,
    HOME: dirname(cluster.home),
    PATH: process.env.PATH ?? '',
  });
  if (load.exitCode !== 0) throw new Error(`tkube load image failed: ${load.stderr}`);
  const ca = await createCertificateAuthority({ commonName: 'e2e-webhook-ca' });
  const serving = await issueServingCertificate(ca, {
    commonName: 'e2e-webhook',
    dnsNames: ['e2e-webhook.default.svc'],
  });
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  caBundle = b64(ca.certificatePem);
  await apply([
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'e2e-webhook', namespace: 'default' },
      data: {
        'tls.crt': b64(serving.certificatePem),
        'tls.key': b64(serving.privateKeyPem),
        'server.js': b64(SERVER),
      },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'e2e-webhook', namespace: 'default' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'e2e-webhook' } },
        template: {
          metadata: { labels: { app: 'e2e-webhook' } },
          spec: {
            containers: [
              {
                name: 'server',
                image: IMAGE,
                imagePullPolicy: 'Never',
                command: ['/bin/node', '/etc/webhook/server.js'],
                volumeMounts: [{ name: 'webhook', mountPath: '/etc/webhook' }],
                readinessProbe: { tcpSocket: { port: 8443 }, periodSeconds: 1 },
              },
            ],
            volumes: [{ name: 'webhook', secret: { secretName: 'e2e-webhook' } }],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'e2e-webhook', namespace: 'default' },
      spec: { selector: { app: 'e2e-webhook' }, ports: [{ port: 443, targetPort: 8443 }] },
    },
    ...['wh-main', 'wh-skipped'].map((name) => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { 'e2e-webhooks': 'on' } },
    })),
  ]);
  await webhookEndpoints((ips) => ips !== '', 'the webhook server to be ready');
}, 400_000);

afterAll(async () => {
  await cluster?.down();
}, 120_000);

describe('admission webhooks served by a pod', () => {
  beforeAll(async () => {
    const common = {
      admissionReviewVersions: ['v1'],
      sideEffects: 'None',
      failurePolicy: 'Fail',
      namespaceSelector: selected,
      matchConditions: [{ name: 'not-skipped', expression: 'request.namespace != "wh-skipped"' }],
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
    };
    await apply([
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: 'e2e-mutate' },
        webhooks: [{ ...common, name: 'mutate.e2e.tkube.dev', clientConfig: service('/mutate') }],
      },
      {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'e2e-validate' },
        webhooks: [{ ...common, name: 'deny.e2e.tkube.dev', clientConfig: service('/validate') }],
      },
    ]);
  }, 60_000);

  it('labels and annotates pods, and denies one by its label with the webhook message', async () => {
    // The configurations take effect within a moment of their creation.
    const created = await waitFor(
      async () =>
        JSON.parse(
          await kubectl(
            ['create', '-o', 'json', '-f', '-'],
            JSON.stringify(pod('wh-main', `mutated-${Date.now()}`)),
          ),
        ),
      (object) => object.metadata?.labels?.['webhook-mutated'] === 'true',
      30_000,
      'a mutated pod',
    );
    expect(created.metadata.annotations['e2e.tkube.dev/seen-by']).toBe('e2e-webhook');
    const denied = await kubectlError(
      ['create', '-f', '-'],
      JSON.stringify(pod('wh-main', 'denied', { deny: 'true' })),
    );
    expect(denied).toContain(
      'admission webhook "deny.e2e.tkube.dev" denied the request: pods labelled deny=true are refused by the e2e webhook',
    );
  }, 60_000);

  it('skips the namespace its matchConditions exclude', async () => {
    const created = JSON.parse(
      await kubectl(
        ['create', '-o', 'json', '-f', '-'],
        JSON.stringify(pod('wh-skipped', 'skipped', { deny: 'true' })),
      ),
    );
    expect(created.metadata.labels).toEqual({ deny: 'true' });
  }, 60_000);

  it('calls sideEffects None webhooks on a dry run and stores nothing', async () => {
    const dry = JSON.parse(
      await kubectl(
        ['create', '--dry-run=server', '-o', 'json', '-f', '-'],
        JSON.stringify(pod('wh-main', 'dry')),
      ),
    );
    expect(dry.metadata.labels['webhook-mutated']).toBe('true');
    expect((await cluster.kubectl(['get', 'pod', 'dry', '-n', 'wh-main'])).stderr).toContain('NotFound');
  }, 60_000);

  it('fails a request at timeoutSeconds when the webhook is slow', async () => {
    await apply([
      configMapValidation('e2e-slow', {
        name: 'slow.e2e.tkube.dev',
        clientConfig: service('/slow'),
        failurePolicy: 'Fail',
        timeoutSeconds: 2,
        objectSelector: { matchLabels: { slow: 'true' } },
      }),
    ]);
    const configMap = (name: string) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'wh-main', labels: { slow: 'true' } },
      });
    const error = await waitFor(
      async () => {
        const started = Date.now();
        const stderr = await kubectlError(['create', '-f', '-'], configMap(`slow-${started}`));
        return { stderr, ms: Date.now() - started };
      },
      ({ stderr }) => stderr.includes('failed calling webhook "slow.e2e.tkube.dev"'),
      30_000,
      'the slow webhook to time out',
    );
    expect(error.stderr).toContain('context deadline exceeded');
    expect(error.ms).toBeLessThan(5500);
    await kubectl(['delete', 'validatingwebhookconfiguration', 'e2e-slow']);
  }, 90_000);
});

describe('a conversion webhook served by the same pod', () => {
  const plural = `endpoints.${GROUP}`;
  const ns = 'wh-main';

  beforeAll(async () => {
    const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
    await apply([
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: plural },
        spec: {
          group: GROUP,
          scope: 'Namespaced',
          names: { plural: 'endpoints', kind: 'Endpoint' },
          versions: [
            { name: 'v1', served: true, storage: true, schema },
            { name: 'v2', served: true, storage: false, schema },
          ],
          conversion: {
            strategy: 'Webhook',
            webhook: { clientConfig: service('/convert'), conversionReviewVersions: ['v1'] },
          },
        },
      },
    ]);
    await waitFor(
      () => kubectl(['get', `endpoints.v2.${GROUP}`, '-n', ns]),
      () => true,
      60_000,
      'the CRD to be served',
    );
  }, 90_000);

  const endpoint = (name: string, hostPort: string) =>
    JSON.stringify({
      apiVersion: `${GROUP}/v1`,
      kind: 'Endpoint',
      metadata: { name, namespace: ns },
      spec: { hostPort },
    });

  it('reads, lists and watches in v2 what was written in v1', async () => {
    await kubectl(['create', '-f', '-'], endpoint('first', 'db.local:5432'));
    const read = JSON.parse(await kubectl(['get', `endpoints.v2.${GROUP}`, 'first', '-n', ns, '-o', 'json']));
    expect(read.apiVersion).toBe(`${GROUP}/v2`);
    expect(read.spec).toEqual({ host: 'db.local', port: '5432' });

    const list = JSON.parse(await kubectl(['get', '--raw', `/apis/${GROUP}/v2/namespaces/${ns}/endpoints`]));
    const rv = list.metadata.resourceVersion as string;
    expect(list.items.map((item: { spec: unknown }) => item.spec)).toEqual([
      { host: 'db.local', port: '5432' },
    ]);

    const watch = cluster.kubectl([
      'get',
      '--raw',
      `/apis/${GROUP}/v2/namespaces/${ns}/endpoints?watch=1&resourceVersion=${rv}&timeoutSeconds=4`,
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await kubectl(['create', '-f', '-'], endpoint('second', 'cache.local:6379'));
    const events = (await watch).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; object: { apiVersion: string; spec: unknown } });
    expect(events).toEqual([
      expect.objectContaining({
        type: 'ADDED',
        object: expect.objectContaining({
          apiVersion: `${GROUP}/v2`,
          spec: { host: 'cache.local', port: '6379' },
        }),
      }),
    ]);

    // Written in v2, stored (and read) in v1.
    await kubectl(
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: `${GROUP}/v2`,
        kind: 'Endpoint',
        metadata: { name: 'third', namespace: ns },
        spec: { host: 'h', port: '1' },
      }),
    );
    const v1 = JSON.parse(await kubectl(['get', `endpoints.v1.${GROUP}`, 'third', '-n', ns, '-o', 'json']));
    expect(v1.spec).toEqual({ hostPort: 'h:1' });
  }, 90_000);
});

describe('the webhook server scaled to 0', () => {
  it('fails requests under failurePolicy Fail and lets them through under Ignore', async () => {
    await apply([
      configMapValidation('e2e-ignore', {
        name: 'ignore.e2e.tkube.dev',
        clientConfig: service('/validate'),
        failurePolicy: 'Ignore',
      }),
    ]);
    await kubectl(['scale', 'deployment', 'e2e-webhook', '-n', 'default', '--replicas=0']);
    await webhookEndpoints((ips) => ips === '', 'the webhook server to be gone');
    const configMap = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'ignored', namespace: 'wh-main' },
    });
    await kubectl(['create', '-f', '-'], configMap);
    const failed = await kubectlError(['create', '-f', '-'], JSON.stringify(pod('wh-main', 'unserved')));
    expect(failed).toContain('Internal error occurred: failed calling webhook "mutate.e2e.tkube.dev"');
    // Conversion needs the server too: reading another version fails with upstream's text.
    const conversion = await kubectlError(['get', `endpoints.v2.${GROUP}`, 'first', '-n', 'wh-main']);
    expect(conversion).toContain(`conversion webhook for ${GROUP}/v1, Kind=Endpoint failed`);
  }, 120_000);
});
