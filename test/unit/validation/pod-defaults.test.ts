import { describe, expect, it } from 'vitest';
import { defaultPullPolicy, parseImageReference } from '../../../src/api/defaults/image-reference.js';
import { defaulted, pod } from './support.js';

describe('pod defaults', () => {
  it('fills what kube-apiserver stores for a minimal pod', () => {
    expect(defaulted('/Pod', pod())).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        containers: [
          {
            name: 'app',
            image: 'nginx:1.27',
            imagePullPolicy: 'IfNotPresent',
            resources: {},
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
          },
        ],
        dnsPolicy: 'ClusterFirst',
        enableServiceLinks: true,
        restartPolicy: 'Always',
        schedulerName: 'default-scheduler',
        securityContext: {},
        terminationGracePeriodSeconds: 30,
      },
    });
  });

  it('defaults ports, probes, env field refs, volumes and resources', () => {
    const result = defaulted(
      '/Pod',
      pod(
        {},
        {
          containers: [
            {
              name: 'app',
              image: 'nginx',
              ports: [{ containerPort: 80 }],
              env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
              resources: { limits: { cpu: '0.5', memory: '1024Mi' }, requests: { cpu: '100u' } },
              livenessProbe: { httpGet: { port: 80 } },
              readinessProbe: { grpc: { port: 9000 } },
              lifecycle: { preStop: { httpGet: { port: 'http' } } },
            },
          ],
          volumes: [
            { name: 'scratch' },
            { name: 'config', configMap: { name: 'cfg' } },
            { name: 'creds', secret: { secretName: 's' } },
            { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
            { name: 'host', hostPath: { path: '/var/log' } },
            {
              name: 'claim',
              ephemeral: {
                volumeClaimTemplate: {
                  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
                },
              },
            },
          ],
        },
      ),
    );
    const spec = result.spec as Record<string, unknown>;
    const [container] = spec.containers as Record<string, unknown>[];
    expect(container).toEqual({
      name: 'app',
      image: 'nginx',
      imagePullPolicy: 'Always',
      ports: [{ containerPort: 80, protocol: 'TCP' }],
      env: [{ name: 'NODE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } }],
      // Requests default to limits (pods only); every value is stored in canonical form, rounded to milli units.
      resources: { limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: '1m', memory: '1Gi' } },
      livenessProbe: {
        httpGet: { port: 80, path: '/', scheme: 'HTTP' },
        timeoutSeconds: 1,
        periodSeconds: 10,
        successThreshold: 1,
        failureThreshold: 3,
      },
      readinessProbe: {
        grpc: { port: 9000, service: '' },
        timeoutSeconds: 1,
        periodSeconds: 10,
        successThreshold: 1,
        failureThreshold: 3,
      },
      lifecycle: { preStop: { httpGet: { port: 'http', path: '/', scheme: 'HTTP' } } },
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    expect(spec.volumes).toEqual([
      { name: 'scratch', emptyDir: {} },
      { name: 'config', configMap: { name: 'cfg', defaultMode: 420 } },
      { name: 'creds', secret: { secretName: 's', defaultMode: 420 } },
      {
        name: 'token',
        projected: {
          sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }],
          defaultMode: 420,
        },
      },
      { name: 'host', hostPath: { path: '/var/log', type: '' } },
      {
        name: 'claim',
        ephemeral: {
          volumeClaimTemplate: {
            metadata: { creationTimestamp: null },
            spec: {
              accessModes: ['ReadWriteOnce'],
              resources: { requests: { storage: '1Gi' } },
              volumeMode: 'Filesystem',
            },
          },
        },
      },
    ]);
  });

  it('defaults host ports to container ports with host networking', () => {
    const result = defaulted(
      '/Pod',
      pod(
        {},
        {
          hostNetwork: true,
          containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 53, protocol: 'UDP' }] }],
        },
      ),
    );
    const [container] = (result.spec as Record<string, unknown>).containers as Record<string, unknown>[];
    expect(container!.ports).toEqual([{ containerPort: 53, hostPort: 53, protocol: 'UDP' }]);
  });

  it('keeps values the user set', () => {
    const result = defaulted(
      '/Pod',
      pod(
        {},
        {
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 0,
          enableServiceLinks: false,
          dnsPolicy: 'Default',
        },
      ),
    );
    expect(result.spec).toMatchObject({
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 0,
      enableServiceLinks: false,
      dnsPolicy: 'Default',
    });
  });
});

describe('image pull policy', () => {
  it.each([
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['docker.io/library/nginx:latest', 'Always'],
    ['nginx:1.27', 'IfNotPresent'],
    ['localhost:5000/app', 'Always'],
    ['localhost:5000/app:v2', 'IfNotPresent'],
    ['nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'IfNotPresent'],
    ['nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'Always'],
    ['Nginx', 'IfNotPresent'],
    ['', 'IfNotPresent'],
  ])('%j → %s', (image, policy) => {
    expect(defaultPullPolicy(image)).toBe(policy);
  });

  it('parses name, tag and digest', () => {
    expect(parseImageReference('registry.example.com:5000/team/app:1.0')).toEqual({
      name: 'registry.example.com:5000/team/app',
      tag: '1.0',
      digest: '',
    });
  });
});
