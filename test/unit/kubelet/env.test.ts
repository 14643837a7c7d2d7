import { describe, expect, it } from 'vitest';
import {
  EnvironmentError,
  type EnvObjects,
  expandCommandAndArgs,
  makeEnvironmentVariables,
} from '../../../src/agent/kubelet/env/container-env.js';
import { serviceEnvironment, serviceEnvVars } from '../../../src/agent/kubelet/env/service-env.js';
import type { ConfigMap, Secret, Service, ServicePort } from '../../../src/api/types/core-v1.generated.js';
import { container, pod } from './fixtures.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

const objects: EnvObjects = {
  configMap: async (namespace, name) =>
    namespace === 'default' && name === 'settings'
      ? ({ data: { MODE: 'fast', LEVEL: '3' } } satisfies ConfigMap)
      : undefined,
  secret: async (_namespace, name) =>
    name === 'creds'
      ? ({ data: { PASSWORD: b64('s3cret'), USER: b64('admin') } } satisfies Secret)
      : undefined,
  nodeAllocatable: async () => ({ cpu: '2', memory: '4Gi' }),
};

const addresses = { podIPs: ['10.244.1.5'], hostIPs: ['172.18.0.3'] };

async function envOf(spec: Parameters<typeof container>[1], services = new Map<string, string>()) {
  const p = pod({ nodeName: 'n1', serviceAccountName: 'builder', containers: [container('app', spec)] });
  const list = await makeEnvironmentVariables(p, p.spec!.containers[0]!, addresses, objects, services);
  return Object.fromEntries(list.map((e) => [e.key, e.value]));
}

describe('container environment', () => {
  it('resolves values, the downward API, configMaps and secrets in order, env over envFrom', async () => {
    const env = await envOf({
      envFrom: [{ configMapRef: { name: 'settings' }, prefix: 'CFG_' }, { secretRef: { name: 'creds' } }],
      env: [
        { name: 'USER', value: 'overridden' },
        { name: 'GREETING', value: 'hello $(USER) in $(CFG_MODE) mode, $$(USER) $(UNKNOWN)' },
        { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
        { name: 'HOST_IP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
        { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
        { name: 'SA', valueFrom: { fieldRef: { fieldPath: 'spec.serviceAccountName' } } },
        { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'settings', key: 'LEVEL' } } },
        { name: 'PW', valueFrom: { secretKeyRef: { name: 'creds', key: 'PASSWORD' } } },
        { name: 'CPU_LIMIT', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } },
        { name: 'MEM_MI', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
      ],
    });
    expect(env).toEqual({
      CFG_MODE: 'fast',
      CFG_LEVEL: '3',
      PASSWORD: 's3cret',
      USER: 'overridden',
      GREETING: 'hello overridden in fast mode, $(USER) $(UNKNOWN)',
      POD_NAME: 'web',
      POD_IP: '10.244.1.5',
      HOST_IP: '172.18.0.3',
      NODE: 'n1',
      SA: 'builder',
      LEVEL: '3',
      PW: 's3cret',
      CPU_LIMIT: '2000',
      MEM_MI: '4096',
    });
  });

  it('skips optional sources that are missing and fails on required ones with the kubelet message', async () => {
    const env = await envOf({
      envFrom: [{ configMapRef: { name: 'absent', optional: true } }],
      env: [
        { name: 'A', valueFrom: { configMapKeyRef: { name: 'absent', key: 'x', optional: true } } },
        { name: 'B', valueFrom: { secretKeyRef: { name: 'creds', key: 'nope', optional: true } } },
      ],
    });
    expect(env).toEqual({});
    await expect(envOf({ envFrom: [{ configMapRef: { name: 'absent' } }] })).rejects.toThrow(
      new EnvironmentError('configmap "absent" not found'),
    );
    await expect(
      envOf({ env: [{ name: 'S', valueFrom: { secretKeyRef: { name: 'gone', key: 'k' } } }] }),
    ).rejects.toThrow('secret "gone" not found');
    await expect(
      envOf({ env: [{ name: 'K', valueFrom: { configMapKeyRef: { name: 'settings', key: 'MISSING' } } }] }),
    ).rejects.toThrow("couldn't find key MISSING in ConfigMap default/settings");
    await expect(
      envOf({ env: [{ name: 'K', valueFrom: { secretKeyRef: { name: 'creds', key: 'MISSING' } } }] }),
    ).rejects.toThrow("couldn't find key MISSING in Secret default/creds");
  });

  it('adds service variables the pod did not set, and expands them in values and commands', async () => {
    const services = new Map([
      ['KUBERNETES_SERVICE_HOST', '10.96.0.1'],
      ['DB_SERVICE_HOST', '10.96.5.5'],
    ]);
    const env = await envOf(
      {
        env: [
          { name: 'DB_SERVICE_HOST', value: 'mine' },
          { name: 'URL', value: 'https://$(KUBERNETES_SERVICE_HOST)' },
        ],
      },
      services,
    );
    expect(env).toEqual({
      DB_SERVICE_HOST: 'mine',
      URL: 'https://10.96.0.1',
      KUBERNETES_SERVICE_HOST: '10.96.0.1',
    });
    const expanded = expandCommandAndArgs(
      container('app', { command: ['sh', '-c'], args: ['echo $(URL) $(NOPE) $$(URL)'] }),
      Object.entries(env).map(([key, value]) => ({ key, value })),
    );
    expect(expanded).toEqual({ command: ['sh', '-c'], args: ['echo https://10.96.0.1 $(NOPE) $(URL)'] });
  });
});

function service(namespace: string, name: string, clusterIP: string, ports: ServicePort[]): Service {
  return { metadata: { namespace, name }, spec: { clusterIP, ports } };
}

describe('service environment variables', () => {
  it('names every port and adds the Docker link variables', () => {
    const vars = serviceEnvVars(
      service('default', 'my-db', '10.96.3.4', [
        { name: 'sql', port: 5432, protocol: 'TCP' },
        { name: 'metrics-http', port: 9187, protocol: 'UDP' },
      ]),
    );
    expect(Object.fromEntries(vars)).toEqual({
      MY_DB_SERVICE_HOST: '10.96.3.4',
      MY_DB_SERVICE_PORT: '5432',
      MY_DB_SERVICE_PORT_SQL: '5432',
      MY_DB_SERVICE_PORT_METRICS_HTTP: '9187',
      MY_DB_PORT: 'tcp://10.96.3.4:5432',
      MY_DB_PORT_5432_TCP: 'tcp://10.96.3.4:5432',
      MY_DB_PORT_5432_TCP_PROTO: 'tcp',
      MY_DB_PORT_5432_TCP_PORT: '5432',
      MY_DB_PORT_5432_TCP_ADDR: '10.96.3.4',
      MY_DB_PORT_9187_UDP: 'udp://10.96.3.4:9187',
      MY_DB_PORT_9187_UDP_PROTO: 'udp',
      MY_DB_PORT_9187_UDP_PORT: '9187',
      MY_DB_PORT_9187_UDP_ADDR: '10.96.3.4',
    });
  });

  it('takes the namespace services with links enabled, and kubernetes from default always', () => {
    const services = [
      service('default', 'kubernetes', '10.96.0.1', [{ name: 'https', port: 443 }]),
      service('apps', 'web', '10.96.7.7', [{ port: 80 }]),
      service('apps', 'headless', 'None', [{ port: 80 }]),
      service('other', 'db', '10.96.8.8', [{ port: 5432 }]),
    ];
    const linked = serviceEnvironment(services, 'apps', true);
    expect(linked.get('WEB_SERVICE_HOST')).toBe('10.96.7.7');
    expect(linked.get('KUBERNETES_SERVICE_PORT_HTTPS')).toBe('443');
    expect(linked.has('HEADLESS_SERVICE_HOST')).toBe(false);
    expect(linked.has('DB_SERVICE_HOST')).toBe(false);
    const unlinked = serviceEnvironment(services, 'apps', false);
    expect([...unlinked.keys()].every((key) => key.startsWith('KUBERNETES_'))).toBe(true);
    expect(unlinked.get('KUBERNETES_PORT')).toBe('tcp://10.96.0.1:443');
  });
});
