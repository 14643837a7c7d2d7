import { describe, expect, it } from 'vitest';
import { decodeKubernetesProtobuf, ProtobufDecodeError } from '../../../src/apiserver/protobuf/index.js';
import {
  bytes,
  double,
  entry,
  envelope,
  int,
  intOrString,
  message,
  packed,
  quantity,
  str,
  sub,
  time,
} from './proto-encoder.js';

const json = (value: unknown): string => JSON.stringify(value);
const decode = (apiVersion: string, kind: string, ...parts: Uint8Array[]) =>
  decodeKubernetesProtobuf(envelope(apiVersion, kind, message(...parts)));

describe('decodeKubernetesProtobuf', () => {
  it('decodes a Pod the way the Go JSON encoder prints it', () => {
    const pod = decode(
      'v1',
      'Pod',
      sub(
        1,
        str(1, 'web-0'),
        str(3, 'default'),
        time(9, 1_700_000_000),
        int(10, 30),
        entry(11, 'app', str(2, 'web')),
      ),
      sub(
        2,
        sub(1, str(1, 'config'), sub(2, sub(19, sub(1, str(1, 'app-config')), int(3, 0o644)))),
        sub(1, str(1, 'scratch'), sub(2, sub(2, quantity(2, '1Gi')))),
        sub(
          2,
          str(1, 'nginx'),
          str(2, 'nginx:1.27'),
          sub(6, int(3, 80), str(4, 'TCP')),
          sub(7, str(1, 'A'), str(2, 'B')),
          sub(7, str(1, 'PASSWORD'), sub(3, sub(4, sub(1, str(1, 'db-secret')), str(2, 'password')))),
          sub(7, str(1, 'NODE'), sub(3, sub(1, str(1, 'v1'), str(2, 'spec.nodeName')))),
          sub(8, entry(1, 'cpu', quantity(2, '500m')), entry(2, 'memory', quantity(2, '128Mi'))),
          sub(9, str(1, 'config'), int(2, true), str(3, '/etc/app')),
          sub(11, sub(1, sub(2, str(1, '/healthz'), intOrString(2, 'http'))), int(4, 10)),
        ),
        str(3, 'Always'),
        sub(14, int(3, false), packed(4, [1000, 2000])),
      ),
    );
    expect(json(pod)).toBe(
      json({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'web-0',
          namespace: 'default',
          creationTimestamp: null,
          deletionTimestamp: '2023-11-14T22:13:20Z',
          deletionGracePeriodSeconds: 30,
          labels: { app: 'web' },
        },
        spec: {
          volumes: [
            { name: 'config', configMap: { name: 'app-config', defaultMode: 420 } },
            { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } },
          ],
          containers: [
            {
              name: 'nginx',
              image: 'nginx:1.27',
              ports: [{ containerPort: 80, protocol: 'TCP' }],
              env: [
                { name: 'A', value: 'B' },
                { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db-secret', key: 'password' } } },
                { name: 'NODE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } },
              ],
              resources: { limits: { cpu: '500m' }, requests: { memory: '128Mi' } },
              volumeMounts: [{ name: 'config', readOnly: true, mountPath: '/etc/app' }],
              readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 10 },
            },
          ],
          restartPolicy: 'Always',
          // A pointer set to false is printed; supplementalGroups came packed.
          securityContext: { runAsNonRoot: false, supplementalGroups: [1000, 2000] },
        },
        status: {},
      }),
    );
  });

  it('matches what kubectl sends as JSON for `kubectl run p --image=nginx --env=A=B --port=80`', () => {
    // kubectl run posts JSON; this is the same object in protobuf, every Go field written as Go writes it.
    const pod = decode(
      'v1',
      'Pod',
      sub(1, str(1, 'p'), str(2, ''), str(3, ''), str(4, ''), str(5, ''), str(6, ''), int(7, 0), sub(8)),
      sub(
        2,
        sub(
          2,
          str(1, 'p'),
          str(2, 'nginx'),
          sub(6, str(1, ''), int(2, 0), int(3, 80)),
          sub(7, str(1, 'A'), str(2, 'B')),
        ),
        str(3, 'Always'),
        str(6, 'ClusterFirst'),
        int(11, false),
      ),
      sub(3),
    );
    const kubectl = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', creationTimestamp: null },
      spec: {
        containers: [
          {
            name: 'p',
            image: 'nginx',
            ports: [{ containerPort: 80 }],
            env: [{ name: 'A', value: 'B' }],
            resources: {},
          },
        ],
        restartPolicy: 'Always',
        dnsPolicy: 'ClusterFirst',
      },
      status: {},
    };
    expect(json(pod)).toBe(json(kubectl));
  });

  it('prints absent non-pointer fields as Go zero values, and nil slices/maps/pointers as null', () => {
    // Job with an empty spec: template and its containers exist in Go as zero values.
    const job = decode('batch/v1', 'Job', sub(1, str(1, 'j')));
    expect(json(job)).toBe(
      json({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'j', creationTimestamp: null },
        spec: { template: { metadata: { creationTimestamp: null }, spec: { containers: null } } },
        status: {},
      }),
    );
  });

  it('decodes IntOrString numbers and strings, and Quantity values', () => {
    const service = decode(
      'v1',
      'Service',
      sub(1, str(1, 'web')),
      sub(2, sub(1, str(1, 'http'), int(3, 80), intOrString(4, 8080), int(5, 30080)), sub(1, int(3, 443))),
    );
    expect((service.spec as { ports: unknown }).ports).toEqual([
      { name: 'http', port: 80, targetPort: 8080, nodePort: 30080 },
      // targetPort is a struct: Go prints its zero value (0) despite omitempty.
      { port: 443, targetPort: 0 },
    ]);
  });

  it('decodes a Deployment strategy with percentage and integer IntOrString pointers', () => {
    const deployment = decode(
      'apps/v1',
      'Deployment',
      sub(1, str(1, 'web')),
      sub(
        2,
        int(1, 0),
        sub(2, entry(1, 'app', str(2, 'web'))),
        sub(4, str(1, 'RollingUpdate'), sub(2, intOrString(1, '25%'), intOrString(2, 1))),
      ),
    );
    expect(json(deployment.spec)).toBe(
      json({
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { creationTimestamp: null }, spec: { containers: null } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } },
      }),
    );
  });

  it('decodes managedFields with Time and FieldsV1, and MicroTime', () => {
    const fields = '{"f:data":{"f:a":{}}}';
    const lease = decode(
      'coordination.k8s.io/v1',
      'Lease',
      sub(
        1,
        str(1, 'holder'),
        time(8, 1_700_000_000, 123),
        sub(
          17,
          str(1, 'kubectl'),
          str(2, 'Update'),
          str(3, 'v1'),
          time(4, 0),
          str(6, 'FieldsV1'),
          sub(7, str(1, fields)),
        ),
      ),
      sub(2, str(1, 'node-1'), int(2, 40), time(3, 1_700_000_000, 123_456_789), time(4, 1_700_000_001)),
    );
    expect(json(lease)).toBe(
      json({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name: 'holder',
          // metav1.Time keeps whole seconds only.
          creationTimestamp: '2023-11-14T22:13:20Z',
          managedFields: [
            {
              manager: 'kubectl',
              operation: 'Update',
              apiVersion: 'v1',
              time: '1970-01-01T00:00:00Z',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:data': { 'f:a': {} } },
            },
          ],
        },
        spec: {
          holderIdentity: 'node-1',
          leaseDurationSeconds: 40,
          acquireTime: '2023-11-14T22:13:20.123456Z',
          renewTime: '2023-11-14T22:13:21.000000Z',
        },
      }),
    );
  });

  it('decodes times before 1970 (negative int64 seconds), as a Lease of the zero time plus 2s', () => {
    const lease = decode(
      'coordination.k8s.io/v1',
      'Lease',
      sub(1, str(1, 'zero')),
      sub(2, time(3, -62_135_596_798), time(4, -1, 500_000_000)),
    );
    expect(json(lease)).toBe(
      json({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'zero', creationTimestamp: null },
        spec: { acquireTime: '0001-01-01T00:00:02.000000Z', renewTime: '1969-12-31T23:59:59.500000Z' },
      }),
    );
  });

  it('decodes RawExtension holding JSON or a nested protobuf object', () => {
    const nested = envelope('v1', 'ConfigMap', message(sub(1, str(1, 'inner')), entry(2, 'k', str(2, 'v'))));
    const fromJson = decode(
      'apps/v1',
      'ControllerRevision',
      sub(1, str(1, 'r1')),
      sub(2, str(1, '{"spec":{"x":1}}')),
      int(3, 2),
    );
    const fromProtobuf = decode('apps/v1', 'ControllerRevision', sub(2, bytes(1, nested)), int(3, 3));
    const absent = decode('apps/v1', 'ControllerRevision', int(3, 4));
    expect(fromJson.data).toEqual({ spec: { x: 1 } });
    expect(fromJson.revision).toBe(2);
    expect(json(fromProtobuf.data)).toBe(
      json({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'inner', creationTimestamp: null },
        data: { k: 'v' },
      }),
    );
    expect(absent.data).toBeNull();
  });

  it('decodes map<string, ExtraValue> and named slices as arrays', () => {
    const review = decode(
      'authentication.k8s.io/v1',
      'TokenReview',
      sub(2, str(1, 'token')),
      sub(
        3,
        int(1, true),
        sub(
          2,
          str(1, 'alice'),
          str(3, 'ops'),
          entry(4, 'scopes', sub(2, str(1, 'a'), str(1, 'b'))),
          entry(4, 'empty'),
        ),
      ),
    );
    expect(json(review.status)).toBe(
      json({
        authenticated: true,
        user: { username: 'alice', groups: ['ops'], extra: { empty: [], scopes: ['a', 'b'] } },
      }),
    );
    const resources = decode(
      'v1',
      'APIResourceList',
      str(1, 'v1'),
      sub(
        2,
        str(1, 'pods'),
        str(6, 'pod'),
        int(2, true),
        str(3, 'Pod'),
        sub(4, str(1, 'get'), str(1, 'list')),
      ),
      sub(2, str(1, 'bindings'), str(3, 'Binding')),
    );
    expect(resources.resources).toEqual([
      { name: 'pods', singularName: 'pod', namespaced: true, kind: 'Pod', verbs: ['get', 'list'] },
      { name: 'bindings', singularName: '', namespaced: false, kind: 'Binding', verbs: null },
    ]);
  });

  it('decodes a CustomResourceDefinition schema with the JSONSchemaProps unions', () => {
    const crd = decode(
      'apiextensions.k8s.io/v1',
      'CustomResourceDefinition',
      sub(1, str(1, 'widgets.example.com')),
      sub(
        2,
        str(1, 'example.com'),
        sub(3, str(1, 'widgets'), str(4, 'Widget')),
        str(4, 'Namespaced'),
        sub(
          7,
          str(1, 'v1'),
          int(2, true),
          int(3, true),
          sub(
            4,
            sub(
              1,
              str(5, 'object'),
              entry(29, 'size', sub(2, str(5, 'integer'), double(9, 10.5), sub(8, str(1, '3')))),
              entry(29, 'tags', sub(2, str(5, 'array'), sub(24, sub(1, str(5, 'string'))))),
              entry(29, 'labels', sub(2, str(5, 'object'), sub(30, sub(2, str(5, 'string'))))),
              entry(29, 'spec', sub(2, str(5, 'object'), int(38, true), sub(30, int(1, false)))),
              entry(
                29,
                'ref',
                sub(2, str(3, '#/definitions/x'), sub(20, str(1, '"a"')), sub(20, str(1, '1'))),
              ),
            ),
          ),
        ),
      ),
    );
    const versions = (crd.spec as { versions: { schema: { openAPIV3Schema: unknown } }[] }).versions;
    expect(json(versions[0].schema.openAPIV3Schema)).toBe(
      json({
        type: 'object',
        properties: {
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          ref: { $ref: '#/definitions/x', enum: ['a', 1] },
          size: { type: 'integer', default: 3, maximum: 10.5 },
          spec: { type: 'object', additionalProperties: false, 'x-kubernetes-preserve-unknown-fields': true },
          tags: { type: 'array', items: { type: 'string' } },
        },
      }),
    );
  });

  it('reads numbers of every width and merges repeated occurrences of a message field', () => {
    const pod = decode(
      'v1',
      'Pod',
      sub(2, int(4, -1), int(5, 2n ** 40n), sub(14, int(4, 5), int(4, 6)), sub(14, int(2, -7)), int(25, -3)),
    );
    const spec = pod.spec as Record<string, unknown>;
    expect(spec.terminationGracePeriodSeconds).toBe(-1);
    expect(spec.activeDeadlineSeconds).toBe(2 ** 40);
    expect(spec.priority).toBe(-3);
    // Two occurrences of securityContext merge: scalars from both, repeated elements appended.
    expect(spec.securityContext).toEqual({ runAsUser: -7, supplementalGroups: [5, 6] });
  });

  it('skips fields it does not know', () => {
    const namespace = decode(
      'v1',
      'Namespace',
      sub(1, str(1, 'n'), str(999, 'future')),
      int(77, 1),
      sub(78, str(1, 'x')),
    );
    expect(json(namespace)).toBe(
      json({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'n', creationTimestamp: null },
        spec: {},
        status: {},
      }),
    );
  });

  it('accepts DeleteOptions under any served group version', () => {
    const options = decode('apps/v1', 'DeleteOptions', int(1, 0), str(4, 'Foreground'), str(5, 'All'));
    expect(json(options)).toBe(
      json({
        apiVersion: 'apps/v1',
        kind: 'DeleteOptions',
        gracePeriodSeconds: 0,
        propagationPolicy: 'Foreground',
        dryRun: ['All'],
      }),
    );
  });

  it('fills a missing kind or version from the expected one', () => {
    const body = message(
      new Uint8Array([0x6b, 0x38, 0x73, 0x00]),
      sub(1),
      bytes(2, message(sub(1, str(1, 'cm')))),
    );
    const object = decodeKubernetesProtobuf(body, { group: '', version: 'v1', kind: 'ConfigMap' });
    expect(object).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm', creationTimestamp: null },
    });
  });

  describe('errors', () => {
    const failure = (body: Uint8Array): string => {
      try {
        decodeKubernetesProtobuf(body);
      } catch (error) {
        expect(error).toBeInstanceOf(ProtobufDecodeError);
        return (error as Error).message;
      }
      throw new Error('decoded without error');
    };

    it('checks the magic prefix and the envelope', () => {
      expect(failure(new Uint8Array())).toBe('empty data');
      expect(failure(new TextEncoder().encode('{"kind":"Pod"}'))).toBe(
        'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
      );
      expect(failure(new Uint8Array([0x6b, 0x38, 0x73, 0x00]))).toBe('empty body');
      expect(failure(message(new Uint8Array([0x6b, 0x38, 0x73, 0x00]), sub(1, str(1, 'v1'))))).toBe(
        `Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:"v1", Kind:""}'`,
      );
      expect(failure(message(new Uint8Array([0x6b, 0x38, 0x73, 0x00]), sub(1, str(2, 'Pod'))))).toBe(
        `Object 'apiVersion' is missing in 'runtime.TypeMeta{APIVersion:"", Kind:"Pod"}'`,
      );
    });

    it('names kinds it does not know', () => {
      expect(failure(envelope('apps/v1', 'Pod', message()))).toBe(
        'no kind "Pod" is registered for version "apps/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
      );
      expect(failure(envelope('example.com/v1', 'Widget', message()))).toMatch(
        /^no kind "Widget" is registered/,
      );
    });

    it('refuses malformed messages', () => {
      // Truncated: a length longer than the data.
      expect(failure(envelope('v1', 'ConfigMap', new Uint8Array([0x0a, 0x05, 0x0a])))).toBe('unexpected EOF');
      // metadata.name sent as a varint.
      expect(failure(envelope('v1', 'ConfigMap', message(sub(1, int(1, 5)))))).toBe(
        'proto: wrong wireType = 0 for field ObjectMeta.name',
      );
      expect(failure(envelope('v1', 'ConfigMap', new Uint8Array([0x0b])))).toBe('proto: illegal wireType 3');
      expect(
        failure(envelope('v1', 'ResourceQuota', message(sub(2, entry(1, 'cpu', quantity(2, 'lots')))))),
      ).toMatch(/quantities must match the regular expression/);
      expect(
        failure(envelope('apps/v1', 'ControllerRevision', message(sub(2, str(1, '{not json')), int(3, 1)))),
      ).toMatch(/^RawExtension: embedded JSON is invalid/);
    });
  });
});
