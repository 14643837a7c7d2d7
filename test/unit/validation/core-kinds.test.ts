import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { createErrors, DNS1035_RULE, defaulted, messages, updateErrors } from './support.js';

const meta = { name: 'web', namespace: 'default' };

describe('Namespace', () => {
  it('gets the metadata.name label and an Active phase', () => {
    expect(
      defaulted('/Namespace', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } }),
    ).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a', labels: { 'kubernetes.io/metadata.name': 'team-a' } },
      status: { phase: 'Active' },
    });
  });

  it('needs a DNS label name and no namespace', () => {
    expect(messages(createErrors('/Namespace', { metadata: { name: 'team.a' } }))).toEqual([
      'metadata.name: Invalid value: "team.a": must not contain dots',
    ]);
    expect(messages(createErrors('/Namespace', { metadata: { name: 'a', namespace: 'b' } }))).toEqual([
      'metadata.namespace: Forbidden: not allowed on this type',
    ]);
  });

  it('checks spec.finalizers', () => {
    expect(
      messages(createErrors('/Namespace', { metadata: { name: 'a' }, spec: { finalizers: ['mine'] } })),
    ).toEqual([
      'spec.finalizers: Invalid value: "mine": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });
});

describe('ConfigMap', () => {
  it('accepts valid keys and rejects others', () => {
    expect(
      createErrors('/ConfigMap', { metadata: meta, data: { 'app.properties': 'x', KEY_1: 'y' } }),
    ).toEqual([]);
    expect(
      messages(createErrors('/ConfigMap', { metadata: meta, data: { 'bad key': 'x', '..hidden': 'y' } })),
    ).toEqual([
      `data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
      `data[..hidden]: Invalid value: "..hidden": must not start with '..'`,
    ]);
  });

  it('rejects a key in both data and binaryData, and more than 1 MiB in total', () => {
    expect(
      messages(createErrors('/ConfigMap', { metadata: meta, data: { a: 'x' }, binaryData: { a: 'eA==' } })),
    ).toEqual(['data[a]: Invalid value: "a": duplicate of key present in binaryData']);
    const big = 'x'.repeat(1024 * 1024);
    expect(messages(createErrors('/ConfigMap', { metadata: meta, data: { a: big, b: 'y' } }))).toEqual([
      ': Too long: may not be more than 1048576 bytes',
    ]);
  });

  it('keeps immutable ConfigMaps immutable', () => {
    const old = { metadata: { ...meta, resourceVersion: '3' }, immutable: true, data: { a: '1' } };
    expect(messages(updateErrors('/ConfigMap', { ...old, data: { a: '2' } }, old))).toEqual([
      'data: Forbidden: field is immutable when `immutable` is set',
    ]);
    expect(messages(updateErrors('/ConfigMap', { ...old, immutable: false }, old))).toEqual([
      'immutable: Forbidden: field is immutable when `immutable` is set',
    ]);
  });
});

describe('Secret', () => {
  it('merges stringData into data (base64) and defaults the type', () => {
    expect(
      defaulted('/Secret', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: meta,
        data: { a: 'b2xk' },
        stringData: { a: 'new', b: 'ü' },
      }),
    ).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: meta,
      data: { a: 'bmV3', b: 'w7w=' },
      type: 'Opaque',
    });
  });

  it('requires the keys of each type', () => {
    expect(
      messages(
        createErrors('/Secret', { metadata: meta, type: 'kubernetes.io/tls', data: { 'tls.crt': 'eA==' } }),
      ),
    ).toEqual(['data[tls.key]: Required value']);
    expect(messages(createErrors('/Secret', { metadata: meta, type: 'kubernetes.io/basic-auth' }))).toEqual([
      'data[username]: Required value',
      'data[password]: Required value',
    ]);
    expect(
      messages(createErrors('/Secret', { metadata: meta, type: 'kubernetes.io/service-account-token' })),
    ).toEqual(['metadata.annotations[kubernetes.io/service-account.name]: Required value']);
    expect(
      messages(
        createErrors('/Secret', {
          metadata: meta,
          type: 'kubernetes.io/dockerconfigjson',
          stringData: { '.dockerconfigjson': '[]' },
        }),
      ),
    ).toEqual([
      'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}',
    ]);
    expect(
      createErrors('/Secret', {
        metadata: meta,
        type: 'kubernetes.io/dockerconfigjson',
        stringData: { '.dockerconfigjson': '{"auths":{}}' },
      }),
    ).toEqual([]);
  });

  it('limits data to 1 MiB of decoded bytes', () => {
    const value = Buffer.alloc(1024 * 1024 + 1).toString('base64');
    expect(messages(createErrors('/Secret', { metadata: meta, data: { a: value } }))).toEqual([
      'data: Too long: may not be more than 1048576 bytes',
    ]);
  });

  it('keeps the type and immutable data', () => {
    const old = defaulted('/Secret', {
      metadata: { ...meta, resourceVersion: '1' },
      data: { a: 'eA==' },
      immutable: true,
    });
    expect(
      messages(
        updateErrors(
          '/Secret',
          { ...old, type: 'kubernetes.io/tls', data: { 'tls.crt': 'eA==', 'tls.key': 'eA==' } },
          old,
        ),
      ),
    ).toEqual([
      'type: Invalid value: "kubernetes.io/tls": field is immutable',
      'data: Forbidden: field is immutable when `immutable` is set',
    ]);
  });
});

describe('ServiceAccount', () => {
  it('validates only metadata', () => {
    expect(createErrors('/ServiceAccount', { metadata: { name: 'builder', namespace: 'ci' } })).toEqual([]);
    expect(
      messages(createErrors('/ServiceAccount', { metadata: { name: 'Builder', namespace: 'ci' } })),
    ).toHaveLength(1);
  });
});

function service(spec: Record<string, unknown>, overrides: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { ...meta, ...overrides }, spec };
}

describe('Service defaults', () => {
  it('fills type, affinity, protocol, targetPort and traffic policies', () => {
    expect(defaulted('/Service', service({ selector: { app: 'web' }, ports: [{ port: 80 }] }))).toEqual(
      service({
        selector: { app: 'web' },
        ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
        type: 'ClusterIP',
        sessionAffinity: 'None',
        internalTrafficPolicy: 'Cluster',
      }),
    );
  });

  it('defaults LoadBalancer extras and the ClientIP timeout', () => {
    const result = defaulted(
      '/Service',
      service({
        type: 'LoadBalancer',
        sessionAffinity: 'ClientIP',
        ports: [{ port: 443, targetPort: 'https' }],
      }),
    );
    expect(result.spec).toEqual({
      type: 'LoadBalancer',
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      ports: [{ port: 443, targetPort: 'https', protocol: 'TCP' }],
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
      allocateLoadBalancerNodePorts: true,
    });
  });
});

describe('Service validation', () => {
  // What the registry's allocator leaves before validation runs.
  const allocated = {
    clusterIP: '10.96.0.10',
    clusterIPs: ['10.96.0.10'],
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
  };

  it('accepts a typical service', () => {
    expect(
      createErrors(
        '/Service',
        service({ ...allocated, selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] }),
      ),
    ).toEqual([]);
    expect(
      createErrors('/Service', service({ clusterIP: 'None', clusterIPs: ['None'], selector: { app: 'db' } })),
    ).toEqual([]);
  });

  it.each([
    [
      'unnamed ports when there are several',
      { ...allocated, ports: [{ port: 80 }, { port: 443 }] },
      ['spec.ports[0].name: Required value', 'spec.ports[1].name: Required value'],
    ],
    ['no ports', { ...allocated }, ['spec.ports: Required value']],
    [
      'a port out of range',
      { ...allocated, ports: [{ port: 0, targetPort: 80 }] },
      ['spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive'],
    ],
    [
      'a target port name with capitals',
      { ...allocated, ports: [{ port: 80, targetPort: 'HTTP' }] },
      [
        'spec.ports[0].targetPort: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
        'spec.ports[0].targetPort: Invalid value: "HTTP": must contain at least one letter (a-z)',
      ],
    ],
    [
      'a node port on a ClusterIP service',
      { ...allocated, ports: [{ port: 80, nodePort: 30080 }] },
      ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"],
    ],
    [
      'an unknown type',
      { ...allocated, type: 'Internal', ports: [{ port: 80 }] },
      [
        'spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
      ],
    ],
    [
      'a headless LoadBalancer',
      { clusterIP: 'None', clusterIPs: ['None'], type: 'LoadBalancer', ports: [{ port: 80 }] },
      ['spec.clusterIPs[0]: Invalid value: "None": may not be set to \'None\' for LoadBalancer services'],
    ],
    [
      'an ExternalName service without a name',
      { type: 'ExternalName' },
      ['spec.externalName: Required value'],
    ],
    [
      'clusterIPs that disagree with clusterIP',
      { ...allocated, clusterIPs: ['10.96.0.11'], ports: [{ port: 80 }] },
      ['spec.clusterIPs: Invalid value: []string{"10.96.0.11"}: first value must match `clusterIP`'],
    ],
    [
      'an unparseable cluster IP',
      { clusterIP: '10.96.0.300', clusterIPs: ['10.96.0.300'], ports: [{ port: 80 }] },
      [
        'spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      ],
    ],
    [
      'a zero ClientIP timeout',
      {
        ...allocated,
        ports: [{ port: 80 }],
        sessionAffinity: 'ClientIP',
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } },
      },
      [
        'spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than 86400',
      ],
    ],
    [
      'an external traffic policy on an internal service',
      { ...allocated, ports: [{ port: 80 }], externalTrafficPolicy: 'Local' },
      [
        "spec.externalTrafficPolicy: Invalid value: \"Local\": may only be set when `type` is 'NodePort' or 'LoadBalancer'",
      ],
    ],
    [
      'a duplicated port',
      {
        ...allocated,
        ports: [
          { name: 'a', port: 80 },
          { name: 'b', port: 80 },
        ],
      },
      [
        'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
      ],
    ],
  ])('rejects %s', (_case, spec, expected) => {
    expect(messages(createErrors('/Service', service(spec)))).toEqual(expected);
  });

  it('uses DNS-1035 names', () => {
    expect(
      messages(createErrors('/Service', service({ ...allocated, ports: [{ port: 80 }] }, { name: '1web' }))),
    ).toEqual([`metadata.name: Invalid value: "1web": ${DNS1035_RULE}`]);
  });

  it('keeps the cluster IP once set', () => {
    const stored = defaulted(
      '/Service',
      service({ ...allocated, ports: [{ port: 80 }] }, { resourceVersion: '4' }),
    );
    const changed = structuredClone(stored);
    Object.assign(changed.spec as object, { clusterIP: '10.96.0.11', clusterIPs: ['10.96.0.11'] });
    expect(messages(updateErrors('/Service', changed, stored))).toEqual([
      'spec.clusterIPs[0]: Invalid value: []string{"10.96.0.11"}: may not change once set',
    ]);
  });
});

describe('Endpoints', () => {
  it('checks addresses and ports', () => {
    const endpoints = (subsets: unknown[]) => ({ metadata: meta, subsets });
    expect(
      createErrors('/Endpoints', endpoints([{ addresses: [{ ip: '10.0.0.5' }], ports: [{ port: 80 }] }])),
    ).toEqual([]);
    expect(
      messages(
        createErrors(
          '/Endpoints',
          endpoints([{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port: 80 }, { port: 81 }] }]),
        ),
      ),
    ).toEqual([
      'subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      'subsets[0].ports[0].name: Required value',
      'subsets[0].ports[1].name: Required value',
    ]);
    expect(messages(createErrors('/Endpoints', endpoints([{ ports: [{ port: 80 }] }])))).toEqual([
      'subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`',
    ]);
  });
});

describe('Node', () => {
  it('reports taints under metadata.taints, as Kubernetes does', () => {
    const node = {
      metadata: { name: 'worker-1' },
      spec: {
        taints: [
          { key: 'a', effect: 'NoSchedule' },
          { key: 'a', effect: 'NoSchedule' },
          { key: 'b', effect: 'Sometimes' },
        ],
      },
    };
    expect(messages(createErrors('/Node', node))).toEqual([
      'metadata.taints[1]: Duplicate value: core.Taint{Key:"a", Value:"", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair',
      'metadata.taints[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ]);
  });

  it('defaults allocatable to capacity', () => {
    const node = defaulted('/Node', {
      metadata: { name: 'n' },
      status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' } },
    });
    expect(node.status).toEqual({
      capacity: { cpu: '4', memory: '8Gi', pods: '110' },
      allocatable: { cpu: '4', memory: '8Gi', pods: '110' },
    });
  });
});

describe('PersistentVolumeClaim and PersistentVolume', () => {
  const claim = (spec: Record<string, unknown>) => ({ metadata: meta, spec });

  it('defaults the volume mode and phase', () => {
    expect(
      defaulted(
        '/PersistentVolumeClaim',
        claim({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1.5Gi' } } }),
      ),
    ).toEqual({
      metadata: meta,
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '1536Mi' } },
        volumeMode: 'Filesystem',
      },
      status: { phase: 'Pending' },
    });
  });

  it('requires access modes and a storage request', () => {
    expect(messages(createErrors('/PersistentVolumeClaim', claim({})))).toEqual([
      'spec.accessModes: Required value: at least 1 access mode is required',
      'spec.resources[storage]: Required value',
    ]);
    expect(
      messages(
        createErrors(
          '/PersistentVolumeClaim',
          claim({ accessModes: ['ReadWriteAlways'], resources: { requests: { storage: '0' } } }),
        ),
      ),
    ).toEqual([
      'spec.accessModes: Unsupported value: "ReadWriteAlways": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
      'spec.resources[storage]: Invalid value: "0": must be greater than zero',
    ]);
  });

  it('keeps an unbound claim spec immutable', () => {
    const stored = defaulted(
      '/PersistentVolumeClaim',
      claim({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } }),
    );
    (stored.metadata as Record<string, unknown>).resourceVersion = '2';
    const changed = structuredClone(stored);
    (changed.spec as Record<string, unknown>).accessModes = ['ReadWriteMany'];
    const [error] = updateErrors('/PersistentVolumeClaim', changed, stored);
    expect(error?.field).toBe('spec');
    expect(error?.detail.split('\n')[0]).toBe(
      'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
    );
  });

  it('checks a hostPath volume', () => {
    const volume = {
      metadata: { name: 'pv1' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } },
    };
    expect(createErrors('/PersistentVolume', volume)).toEqual([]);
    expect(defaulted('/PersistentVolume', volume).spec).toMatchObject({
      persistentVolumeReclaimPolicy: 'Retain',
      volumeMode: 'Filesystem',
    });
    expect(
      messages(
        createErrors('/PersistentVolume', {
          metadata: { name: 'pv2' },
          spec: { accessModes: ['ReadWriteOnce'] },
        }),
      ),
    ).toEqual([
      'spec.capacity: Required value',
      'spec.capacity: Unsupported value: {}: supported values: "storage"',
      'spec: Required value: must specify a volume type',
    ]);
  });
});

describe('ResourceQuota and LimitRange', () => {
  it('checks quota resource names and scopes', () => {
    expect(
      createErrors('/ResourceQuota', { metadata: meta, spec: { hard: { pods: '10', 'requests.cpu': '4' } } }),
    ).toEqual([]);
    expect(
      messages(
        createErrors('/ResourceQuota', {
          metadata: meta,
          spec: { hard: { pods: '1.5' }, scopes: ['BestEffort', 'NotBestEffort'] },
        }),
      ),
    ).toEqual([
      'spec.hard[pods]: Invalid value: "1500m": must be an integer',
      'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: conflicting scopes',
    ]);
  });

  it('defaults container limits from max and min', () => {
    const result = defaulted('/LimitRange', {
      metadata: meta,
      spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { memory: '64Mi' } }] },
    });
    expect(result.spec).toEqual({
      limits: [
        {
          type: 'Container',
          max: { cpu: '2' },
          min: { memory: '64Mi' },
          default: { cpu: '2' },
          defaultRequest: { cpu: '2', memory: '64Mi' },
        },
      ],
    });
  });

  it('requires min ≤ default request ≤ default ≤ max', () => {
    const errors = createErrors('/LimitRange', {
      metadata: meta,
      spec: { limits: [{ type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } }] },
    });
    expect(messages(errors)).toEqual([
      'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
      'spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1',
      'spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1',
    ]);
  });
});

describe('Event', () => {
  it('checks the involved object namespace (core/v1)', () => {
    const event = {
      metadata: { name: 'e1', namespace: 'default' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' },
    };
    expect(messages(createErrors('/Event', event))).toEqual([
      'involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    ]);
  });

  it('applies the strict rules through events.k8s.io', () => {
    const event = {
      metadata: { name: 'e1', namespace: 'default' },
      regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
      type: 'Info',
    };
    expect(messages(createErrors('events.k8s.io/Event', event))).toEqual([
      'eventTime: Required value',
      'type: Invalid value: "": has invalid value: Info',
    ]);
  });
});
