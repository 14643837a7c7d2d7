import { describe, expect, it } from 'vitest';
import { type FieldValidation, validateFields } from '../../../src/apiserver/field-validation/index.js';
import { StatusError } from '../../../src/apiserver/status.js';

const deploymentGvk = { group: 'apps', version: 'v1', kind: 'Deployment' };
const podGvk = { group: '', version: 'v1', kind: 'Pod' };
const serviceGvk = { group: '', version: 'v1', kind: 'Service' };
const configMapGvk = { group: '', version: 'v1', kind: 'ConfigMap' };

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'default',
    labels: { app: 'web', 'app.kubernetes.io/part-of': 'shop' },
    annotations: { 'deployment.kubernetes.io/revision': '1', anything: 'goes' },
    managedFields: [{ manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:spec': { 'f:bogus': {} } } }],
  },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        containers: [
          {
            name: 'nginx',
            image: 'nginx:1.27',
            ports: [{ containerPort: 80, name: 'http' }],
            resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: 0.1 } },
            readinessProbe: { httpGet: { path: '/', port: 'http' } },
            env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          },
        ],
      },
    },
  },
  status: {
    replicas: 3,
    conditions: [{ type: 'Available', status: 'True', lastUpdateTime: '2025-01-01T00:00:00Z' }],
  },
};

/** The deployment as JSON, with each `[dotted.path, value]` set in a copy first (numbers index lists). */
function deploymentJson(...edits: Array<[string, unknown]>): string {
  const copy: unknown = structuredClone(deployment);
  for (const [path, value] of edits) {
    const keys = path.split('.');
    let at = copy as Record<string, unknown>;
    for (const key of keys.slice(0, -1)) at = at[key] as Record<string, unknown>;
    at[keys.at(-1)!] = value;
  }
  return JSON.stringify(copy);
}

function strictError(body: string, gvk: typeof deploymentGvk): StatusError {
  try {
    validateFields(body, gvk, 'Strict');
  } catch (error) {
    if (error instanceof StatusError) return error;
    throw error;
  }
  throw new Error('expected a StatusError');
}

describe('validateFields under Warn', () => {
  it.each([
    { name: 'a complete, valid Deployment', body: deploymentJson(), gvk: deploymentGvk, warnings: [] },
    {
      name: 'a misspelt spec field',
      body: deploymentJson(['spec.replicasx', 2]),
      gvk: deploymentGvk,
      warnings: ['unknown field "spec.replicasx"'],
    },
    {
      name: 'unknown fields nested in containers, ports and probes',
      body: deploymentJson(
        ['spec.template.spec.containers.0.imagex', 'nginx'],
        ['spec.template.spec.containers.0.ports.0.hostPortx', 1],
        ['spec.template.spec.containers.0.readinessProbe.httpGet.schema', 'HTTP'],
      ),
      gvk: deploymentGvk,
      warnings: [
        'unknown field "spec.template.spec.containers[0].ports[0].hostPortx"',
        'unknown field "spec.template.spec.containers[0].readinessProbe.httpGet.schema"',
        'unknown field "spec.template.spec.containers[0].imagex"',
      ],
    },
    {
      name: 'an unknown field in metadata and in the template metadata',
      body: deploymentJson(['metadata.label', { app: 'web' }], ['spec.template.metadata.names', 'x']),
      gvk: deploymentGvk,
      warnings: ['unknown field "metadata.label"', 'unknown field "spec.template.metadata.names"'],
    },
    {
      name: 'objects in IntOrString, Quantity, Time and FieldsV1 positions (their own decoders judge them)',
      body: deploymentJson(
        ['spec.strategy.rollingUpdate.maxSurge', { bogus: 1 }],
        ['spec.template.spec.containers.0.readinessProbe.httpGet.port', { bogus: 1 }],
        ['spec.template.spec.containers.0.resources.limits.cpu', { bogus: 1 }],
        ['status.conditions.0.lastUpdateTime', { bogus: 1 }],
      ),
      gvk: deploymentGvk,
      warnings: [],
    },
    {
      name: 'a top-level unknown field next to apiVersion, kind, metadata and status',
      body: deploymentJson(['specs', {}]),
      gvk: deploymentGvk,
      warnings: ['unknown field "specs"'],
    },
    {
      name: 'a Service whose targetPort is a name and whose port has a typo',
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web' },
        spec: {
          selector: { app: 'web', anyKey: 'allowed' },
          ports: [
            { port: 80, targetPort: 'http' },
            { port: 443, targetPort: 8443, protocl: 'TCP' },
          ],
          type: 'ClusterIP',
        },
      }),
      gvk: serviceGvk,
      warnings: ['unknown field "spec.ports[1].protocl"'],
    },
    {
      name: 'a ConfigMap: any data key is fine, an unknown top-level field is not',
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cfg' },
        data: { 'app.properties': 'a=1', 'spec.replicasx': '2' },
        binaryData: { blob: 'AAE=' },
        immutable: true,
        date: { x: 'y' },
      }),
      gvk: configMapGvk,
      warnings: ['unknown field "date"'],
    },
  ])('$name', ({ body, gvk, warnings }) => {
    expect(validateFields(body, gvk, 'Warn')).toEqual(warnings);
  });

  it('reports duplicate fields at several depths, in document order', () => {
    const body = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","name":"b","labels":{"app":"x","app":"y"}},
      "spec":{"containers":[{"name":"c","image":"i","image":"j","env":[{"name":"A","value":"1","value":"2"}]}],
      "restartPolicy":"Always","restartPolicy":"Never"}}`;
    expect(validateFields(body, podGvk, 'Warn')).toEqual([
      'duplicate field "metadata.name"',
      'duplicate field "metadata.labels.app"',
      'duplicate field "spec.containers[0].image"',
      'duplicate field "spec.containers[0].env[0].value"',
      'duplicate field "spec.restartPolicy"',
    ]);
  });

  it('accepts a Buffer body and treats an absent directive as Warn', () => {
    const body = Buffer.from(deploymentJson(['spec.paused2', true]));
    expect(validateFields(body, deploymentGvk, undefined)).toEqual(['unknown field "spec.paused2"']);
  });

  it('finds only duplicate fields in kinds without a built-in schema (custom resources)', () => {
    const body = '{"apiVersion":"example.com/v1","kind":"Widget","spec":{"size":1,"size":2,"whatever":true}}';
    expect(validateFields(body, { group: 'example.com', version: 'v1', kind: 'Widget' }, 'Warn')).toEqual([
      'duplicate field "spec.size"',
    ]);
  });

  it('checks CustomResourceDefinition schemas as Go types, but not inside items (its own decoder)', () => {
    const body = JSON.stringify({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', kind: 'Widget' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: { enabled: true } },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', requierd: ['size'] } },
                items: { type: 'string', bogus: true },
              },
            },
          },
        ],
      },
    });
    expect(
      validateFields(
        body,
        { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' },
        'Warn',
      ),
    ).toEqual([
      'unknown field "spec.versions[0].subresources.status.enabled"',
      'unknown field "spec.versions[0].schema.openAPIV3Schema.properties.spec.requierd"',
    ]);
  });

  it('checks a 3 MiB ConfigMap and finds the duplicate at its end', () => {
    const data: Record<string, string> = {};
    for (let i = 0; i < 40_000; i++) data[`key-${i}`] = 'v'.repeat(62);
    const json = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data });
    const body = Buffer.from(`${json.slice(0, -2)},"key-7":"again"}}`);
    expect(body.length).toBeGreaterThan(3_000_000);
    expect(body.length).toBeLessThanOrEqual(3 * 1024 * 1024);
    expect(validateFields(body, configMapGvk, 'Warn')).toEqual(['duplicate field "data.key-7"']);
  });
});

describe('validateFields under Strict and Ignore', () => {
  it('rejects a body with strict errors with kube-apiserver’s 400', () => {
    const body = deploymentJson(
      ['spec.replicasx', 2],
      ['spec.template.spec.containers.0.imagex', 'x'],
    ).replace('"name":"web"', '"name":"web","name":"web"');
    const error = strictError(body, deploymentGvk);
    expect(error.toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: duplicate field "metadata.name", unknown field "spec.template.spec.containers[0].imagex", unknown field "spec.replicasx"',
      reason: 'BadRequest',
      code: 400,
    });
  });

  it.each<{ mode: FieldValidation; result: string[] | 'throws' }>([
    { mode: 'Strict', result: 'throws' },
    { mode: 'Warn', result: ['unknown field "spec.replicasx"'] },
    { mode: 'Ignore', result: [] },
  ])('$mode: a body with an unknown field', ({ mode, result }) => {
    const body = deploymentJson(['spec.replicasx', 2]);
    if (result === 'throws') expect(() => validateFields(body, deploymentGvk, mode)).toThrow(StatusError);
    else expect(validateFields(body, deploymentGvk, mode)).toEqual(result);
  });

  it('accepts a clean body under Strict', () => {
    expect(validateFields(deploymentJson(), deploymentGvk, 'Strict')).toEqual([]);
  });
});
