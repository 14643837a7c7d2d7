import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { createErrors, DNS1035_RULE, defaulted, messages, updateErrors } from './support.js';

const meta = { name: 'web', namespace: 'default' };
const clusterMeta = { name: 'fast' };

function namespaced(apiVersion: string, kind: string, body: Record<string, unknown>): KubeObject {
  return { apiVersion, kind, metadata: meta, ...body };
}

describe('NetworkPolicy', () => {
  const policy = (spec: Record<string, unknown>) =>
    namespaced('networking.k8s.io/v1', 'NetworkPolicy', { spec });

  it('defaults policyTypes from the rules and port protocols to TCP', () => {
    expect(defaulted('networking.k8s.io/NetworkPolicy', policy({}))).toEqual(
      policy({ podSelector: {}, policyTypes: ['Ingress'] }),
    );
    expect(
      defaulted(
        'networking.k8s.io/NetworkPolicy',
        policy({
          podSelector: { matchLabels: { app: 'db' } },
          egress: [{ ports: [{ port: 53 }, { port: 53, protocol: 'UDP' }] }],
        }),
      ),
    ).toEqual(
      policy({
        podSelector: { matchLabels: { app: 'db' } },
        egress: [
          {
            ports: [
              { port: 53, protocol: 'TCP' },
              { port: 53, protocol: 'UDP' },
            ],
          },
        ],
        policyTypes: ['Ingress', 'Egress'],
      }),
    );
  });

  it('accepts a typical policy', () => {
    const spec = {
      podSelector: { matchLabels: { app: 'db' } },
      ingress: [
        {
          from: [
            { podSelector: { matchLabels: { app: 'web' } } },
            { ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } },
          ],
          ports: [{ port: 5432 }, { port: 'http' }, { port: 3000, endPort: 3010 }],
        },
      ],
    };
    expect(createErrors('networking.k8s.io/NetworkPolicy', policy(spec))).toEqual([]);
  });

  it.each([
    [
      'a port out of range',
      { ingress: [{ ports: [{ port: 70000 }] }] },
      ['spec.ingress[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive'],
    ],
    [
      'an endPort below the port',
      { ingress: [{ ports: [{ port: 3000, endPort: 2000 }] }] },
      ['spec.ingress[0].ports[0].endPort: Invalid value: 3000: must be greater than or equal to `port`'],
    ],
    [
      'an endPort with a named port',
      { egress: [{ ports: [{ port: 'http', endPort: 90 }] }] },
      ['spec.egress[0].ports[0].endPort: Invalid value: 90: may not be specified when `port` is non-numeric'],
    ],
    [
      'an unknown protocol',
      { ingress: [{ ports: [{ port: 80, protocol: 'ICMP' }] }] },
      [
        'spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
      ],
    ],
    [
      'an empty peer',
      { ingress: [{ from: [{}] }] },
      ['spec.ingress[0].from[0]: Required value: must specify a peer'],
    ],
    [
      'an ipBlock with another peer',
      { ingress: [{ from: [{ podSelector: {}, ipBlock: { cidr: '10.0.0.0/8' } }] }] },
      ['spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer'],
    ],
    [
      'an except outside the cidr',
      { egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.1.0.0/24', '10.0.0.0/16'] } }] }] },
      [
        'spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "10.1.0.0/24": must be a strict subset of `cidr`',
        'spec.egress[0].to[0].ipBlock.except[1]: Invalid value: "10.0.0.0/16": must be a strict subset of `cidr`',
      ],
    ],
    [
      'a missing cidr',
      { egress: [{ to: [{ ipBlock: {} }] }] },
      ['spec.egress[0].to[0].ipBlock.cidr: Required value'],
    ],
    [
      'an unknown policy type',
      { policyTypes: ['Ingress', 'Sideways'] },
      ['spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"'],
    ],
    [
      'three policy types',
      { policyTypes: ['Ingress', 'Egress', 'Ingress'] },
      [
        'spec.policyTypes: Invalid value: []networking.PolicyType{"Ingress", "Egress", "Ingress"}: may not specify more than two policyTypes',
      ],
    ],
  ])('rejects %s', (_name, spec, expected) => {
    expect(messages(createErrors('networking.k8s.io/NetworkPolicy', policy(spec)))).toEqual(expected);
  });
});

describe('Ingress', () => {
  const backend = { service: { name: 'web', port: { number: 80 } } };
  const ingress = (spec: Record<string, unknown>, metadata: Record<string, unknown> = meta) => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata,
    spec,
  });
  const rule = (path: Record<string, unknown>, host = 'www.example.com') => ({
    host,
    http: { paths: [path] },
  });

  it('accepts rules, TLS and a default backend, and has no v1 defaults', () => {
    const spec = {
      ingressClassName: 'nginx',
      defaultBackend: { service: { name: 'fallback', port: { name: 'http' } } },
      tls: [{ hosts: ['*.example.com'], secretName: 'wildcard-tls' }],
      rules: [
        rule({ path: '/', pathType: 'Prefix', backend }),
        rule({ pathType: 'ImplementationSpecific', backend }, '*.example.com'),
      ],
    };
    expect(defaulted('networking.k8s.io/Ingress', ingress(spec))).toEqual(ingress(spec));
    expect(createErrors('networking.k8s.io/Ingress', ingress(spec))).toEqual([]);
  });

  it.each([
    [
      'neither rules nor a default backend',
      {},
      [
        'spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified',
      ],
    ],
    [
      'a path without pathType',
      { rules: [rule({ path: '/', backend })] },
      ['spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified'],
    ],
    [
      'a relative Prefix path',
      { rules: [rule({ path: 'api', pathType: 'Prefix', backend })] },
      ['spec.rules[0].http.paths[0].path: Invalid value: "api": must be an absolute path'],
    ],
    [
      'a path with a dot segment',
      { rules: [rule({ path: '/a/../b', pathType: 'Exact', backend })] },
      ['spec.rules[0].http.paths[0].path: Invalid value: "/a/../b": must not contain \'/../\''],
    ],
    [
      'an unknown pathType',
      { rules: [rule({ path: '/', pathType: 'Regex', backend })] },
      [
        'spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"',
      ],
    ],
    [
      'an IP address host',
      { rules: [rule({ path: '/', pathType: 'Prefix', backend }, '10.0.0.1')] },
      ['spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address'],
    ],
    [
      'a backend without a port',
      { rules: [rule({ path: '/', pathType: 'Prefix', backend: { service: { name: 'web' } } })] },
      ['spec.rules[0].http.paths[0].backend: Required value: port name or number is required'],
    ],
    [
      'a backend with both port name and number',
      { defaultBackend: { service: { name: 'web', port: { name: 'http', number: 80 } } } },
      ['spec.defaultBackend: Invalid value: "": cannot set both port name & port number'],
    ],
    [
      'a service name that is not a DNS-1035 label',
      { defaultBackend: { service: { name: '1web', port: { number: 80 } } } },
      [`spec.defaultBackend.service.name: Invalid value: "1web": ${DNS1035_RULE}`],
    ],
    [
      'a backend with neither service nor resource',
      { defaultBackend: {} },
      ['spec.defaultBackend: Invalid value: "": resource or service backend is required'],
    ],
  ])('rejects %s', (_name, spec, expected) => {
    expect(messages(createErrors('networking.k8s.io/Ingress', ingress(spec)))).toEqual(expected);
  });

  it('requires the class annotation to agree with ingressClassName', () => {
    const annotated = { ...meta, annotations: { 'kubernetes.io/ingress.class': 'traefik' } };
    expect(
      messages(
        createErrors(
          'networking.k8s.io/Ingress',
          ingress({ ingressClassName: 'nginx', defaultBackend: backend }, annotated),
        ),
      ),
    ).toEqual([
      'annotations.kubernetes.io/ingress.class: Invalid value: "traefik": must match `ingressClassName` when both are specified',
    ]);
  });
});

describe('IngressClass', () => {
  const ingressClass = (spec: Record<string, unknown>) => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name: 'nginx' },
    spec,
  });

  it('defaults the parameters scope to Cluster', () => {
    const parameters = { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external-lb' };
    expect(
      defaulted(
        'networking.k8s.io/IngressClass',
        ingressClass({ controller: 'example.com/ingress', parameters }),
      ),
    ).toEqual(
      ingressClass({ controller: 'example.com/ingress', parameters: { ...parameters, scope: 'Cluster' } }),
    );
  });

  it('needs a domain-prefixed controller and a namespace only for Namespace scope', () => {
    expect(
      messages(createErrors('networking.k8s.io/IngressClass', ingressClass({ controller: 'nginx' }))),
    ).toEqual([
      'spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")',
    ]);
    const parameters = { kind: 'Params', name: 'p', scope: 'Namespace' };
    expect(
      messages(
        createErrors('networking.k8s.io/IngressClass', ingressClass({ controller: 'a.io/b', parameters })),
      ),
    ).toEqual(["spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"]);
  });
});

describe('PodDisruptionBudget', () => {
  const budget = (spec: Record<string, unknown>, name = 'web') => ({
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: 'default' },
    spec,
  });
  const selector = { matchLabels: { app: 'web' } };

  it('accepts counts and percentages', () => {
    expect(createErrors('policy/PodDisruptionBudget', budget({ minAvailable: 2, selector }))).toEqual([]);
    expect(createErrors('policy/PodDisruptionBudget', budget({ maxUnavailable: '50%', selector }))).toEqual(
      [],
    );
  });

  it.each([
    [
      'both minAvailable and maxUnavailable',
      { minAvailable: 1, maxUnavailable: 1, selector },
      [
        'spec: Invalid value: policy.PodDisruptionBudgetSpec{...}: minAvailable and maxUnavailable cannot be both set',
      ],
    ],
    [
      'a negative count',
      { minAvailable: -1, selector },
      ['spec.minAvailable: Invalid value: -1: must be greater than or equal to 0'],
    ],
    [
      'a percentage above 100',
      { maxUnavailable: '120%', selector },
      [
        'spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"120%"}: must not be greater than 100%',
      ],
    ],
    [
      'a string that is not a percentage',
      { minAvailable: 'half', selector },
      [
        "spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"half\"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      ],
    ],
    [
      'an unknown eviction policy',
      { minAvailable: 1, selector, unhealthyPodEvictionPolicy: 'Never' },
      [
        'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"',
      ],
    ],
  ])('rejects %s', (_name, spec, expected) => {
    expect(messages(createErrors('policy/PodDisruptionBudget', budget(spec)))).toEqual(expected);
  });

  it('validates the name as a path segment only once the spec is valid', () => {
    expect(
      messages(
        createErrors('policy/PodDisruptionBudget', budget({ minAvailable: 1, selector }, 'Web_Budget')),
      ),
    ).toEqual([]);
    expect(
      messages(createErrors('policy/PodDisruptionBudget', budget({ minAvailable: 1, selector }, 'a/b'))),
    ).toEqual(['metadata.name: Invalid value: "a/b": may not contain \'/\'']);
  });
});

describe('HorizontalPodAutoscaler', () => {
  const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
  const hpa = (spec: Record<string, unknown>) =>
    namespaced('autoscaling/v2', 'HorizontalPodAutoscaler', { spec });
  const cpu = (averageUtilization: number) => ({
    type: 'Resource',
    resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization } },
  });

  it('defaults minReplicas, a CPU metric, and the unset scaling rules of a given behavior', () => {
    expect(
      defaulted('autoscaling/HorizontalPodAutoscaler', hpa({ scaleTargetRef: target, maxReplicas: 5 })),
    ).toEqual(hpa({ scaleTargetRef: target, maxReplicas: 5, minReplicas: 1, metrics: [cpu(80)] }));
    const behavior = { scaleDown: { stabilizationWindowSeconds: 60 } };
    expect(
      defaulted(
        'autoscaling/HorizontalPodAutoscaler',
        hpa({ scaleTargetRef: target, maxReplicas: 5, metrics: [cpu(50)], behavior }),
      ),
    ).toEqual(
      hpa({
        scaleTargetRef: target,
        maxReplicas: 5,
        minReplicas: 1,
        metrics: [cpu(50)],
        behavior: {
          scaleUp: {
            stabilizationWindowSeconds: 0,
            selectPolicy: 'Max',
            policies: [
              { type: 'Pods', value: 4, periodSeconds: 15 },
              { type: 'Percent', value: 100, periodSeconds: 15 },
            ],
          },
          scaleDown: {
            stabilizationWindowSeconds: 60,
            selectPolicy: 'Max',
            policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
          },
        },
      }),
    );
  });

  it('canonicalizes target quantities', () => {
    const metric = {
      type: 'Pods',
      pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '1000m' } },
    };
    const result = defaulted(
      'autoscaling/HorizontalPodAutoscaler',
      hpa({ scaleTargetRef: target, maxReplicas: 5, metrics: [metric] }),
    );
    expect((result.spec as { metrics: unknown[] }).metrics).toEqual([
      {
        type: 'Pods',
        pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '1' } },
      },
    ]);
  });

  it('accepts a defaulted autoscaler', () => {
    expect(
      createErrors('autoscaling/HorizontalPodAutoscaler', hpa({ scaleTargetRef: target, maxReplicas: 5 })),
    ).toEqual([]);
  });

  it.each([
    [
      'replica bounds',
      { scaleTargetRef: target, minReplicas: 3, maxReplicas: 2 },
      ['spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`'],
    ],
    [
      'zero replicas',
      { scaleTargetRef: target, minReplicas: 0, maxReplicas: 0 },
      [
        'spec.minReplicas: Invalid value: 0: must be greater than or equal to 1',
        'spec.maxReplicas: Invalid value: 0: must be greater than 0',
        'spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas',
      ],
    ],
    [
      'a target without kind',
      { scaleTargetRef: { name: 'web' }, maxReplicas: 2 },
      ['spec.scaleTargetRef.kind: Required value'],
    ],
    [
      'a resource metric with two targets',
      {
        scaleTargetRef: target,
        maxReplicas: 2,
        metrics: [
          {
            type: 'Resource',
            resource: {
              name: 'memory',
              target: { type: 'Utilization', averageUtilization: 0, averageValue: '1Gi' },
            },
          },
        ],
      },
      [
        'spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0',
        'spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization',
      ],
    ],
    [
      'a metric whose source does not match its type',
      {
        scaleTargetRef: target,
        maxReplicas: 2,
        metrics: [
          {
            type: 'Pods',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } },
          },
        ],
      },
      ['spec.metrics[0].pods: Required value: must populate information for the given metric source'],
    ],
    [
      'behavior without policies',
      { scaleTargetRef: target, maxReplicas: 2, behavior: { scaleUp: { policies: [] } } },
      ['spec.behavior.scaleUp.policies: Required value: must specify at least one Policy'],
    ],
  ])('rejects %s', (_name, spec, expected) => {
    expect(messages(createErrors('autoscaling/HorizontalPodAutoscaler', hpa(spec)))).toEqual(expected);
  });
});

describe('PriorityClass', () => {
  const priorityClass = (body: Record<string, unknown>, name = 'high') => ({
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name },
    ...body,
  });

  it('defaults preemptionPolicy', () => {
    expect(defaulted('scheduling.k8s.io/PriorityClass', priorityClass({ value: 1000 }))).toEqual(
      priorityClass({ value: 1000, preemptionPolicy: 'PreemptLowerPriority' }),
    );
  });

  it('caps user values and reserves system- names', () => {
    expect(
      messages(createErrors('scheduling.k8s.io/PriorityClass', priorityClass({ value: 2000000000 }))),
    ).toEqual(['value: Forbidden: maximum allowed value of a user defined priority is 1000000000']);
    expect(
      messages(createErrors('scheduling.k8s.io/PriorityClass', priorityClass({ value: 1 }, 'system-mine'))),
    ).toEqual([
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
    ]);
    expect(
      createErrors(
        'scheduling.k8s.io/PriorityClass',
        priorityClass({ value: 2000001000 }, 'system-node-critical'),
      ),
    ).toEqual([]);
  });

  it('keeps value and preemptionPolicy fixed', () => {
    const old = defaulted('scheduling.k8s.io/PriorityClass', {
      ...priorityClass({ value: 10 }),
      metadata: { name: 'high', resourceVersion: '1' },
    });
    expect(messages(updateErrors('scheduling.k8s.io/PriorityClass', { ...old, value: 11 }, old))).toEqual([
      'value: Forbidden: may not be changed in an update.',
    ]);
    expect(
      messages(updateErrors('scheduling.k8s.io/PriorityClass', { ...old, preemptionPolicy: 'Never' }, old)),
    ).toEqual(['preemptionPolicy: Invalid value: "Never": field is immutable']);
  });
});

describe('StorageClass', () => {
  const storageClass = (body: Record<string, unknown>) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: clusterMeta,
    ...body,
  });

  it('defaults reclaimPolicy and volumeBindingMode', () => {
    expect(
      defaulted('storage.k8s.io/StorageClass', storageClass({ provisioner: 'ebs.csi.aws.com' })),
    ).toEqual(
      storageClass({
        provisioner: 'ebs.csi.aws.com',
        reclaimPolicy: 'Delete',
        volumeBindingMode: 'Immediate',
      }),
    );
  });

  it('checks provisioner, policies and topologies', () => {
    expect(
      createErrors('storage.k8s.io/StorageClass', storageClass({ provisioner: 'kubernetes.io/aws-ebs' })),
    ).toEqual([]);
    expect(
      messages(
        createErrors(
          'storage.k8s.io/StorageClass',
          storageClass({
            reclaimPolicy: 'Recycle',
            volumeBindingMode: 'Later',
            allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: [] }] }],
          }),
        ),
      ),
    ).toEqual([
      'provisioner: Required value',
      'reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
      'volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
      'allowedTopologies[0].matchLabelExpressions[0].values: Required value',
    ]);
  });

  it('forbids changing parameters, provisioner and reclaimPolicy', () => {
    const old = defaulted('storage.k8s.io/StorageClass', {
      ...storageClass({ provisioner: 'a.io/b', parameters: { type: 'gp3' } }),
      metadata: { ...clusterMeta, resourceVersion: '1' },
    });
    const changed = { ...old, provisioner: 'c.io/d', parameters: { type: 'io2' }, reclaimPolicy: 'Retain' };
    expect(messages(updateErrors('storage.k8s.io/StorageClass', changed, old))).toEqual([
      'parameters: Forbidden: updates to parameters are forbidden.',
      'provisioner: Forbidden: updates to provisioner are forbidden.',
      'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
    ]);
  });
});

describe('Lease', () => {
  const lease = (spec: Record<string, unknown>, finalizers?: string[]) =>
    namespaced('coordination.k8s.io/v1', 'Lease', { metadata: { ...meta, finalizers }, spec });

  it('checks durations and allows unprefixed finalizers', () => {
    expect(
      createErrors(
        'coordination.k8s.io/Lease',
        lease({ holderIdentity: 'a', leaseDurationSeconds: 15 }, ['mine']),
      ),
    ).toEqual([]);
    expect(
      messages(
        createErrors('coordination.k8s.io/Lease', lease({ leaseDurationSeconds: 0, leaseTransitions: -1 })),
      ),
    ).toEqual([
      'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
      'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });
});

describe('EndpointSlice', () => {
  const slice = (body: Record<string, unknown>) => namespaced('discovery.k8s.io/v1', 'EndpointSlice', body);

  it('defaults port names and protocols', () => {
    expect(
      defaulted('discovery.k8s.io/EndpointSlice', slice({ addressType: 'IPv4', ports: [{ port: 80 }] })),
    ).toEqual(slice({ addressType: 'IPv4', ports: [{ port: 80, name: '', protocol: 'TCP' }] }));
  });

  it('accepts a typical slice', () => {
    const body = {
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.1.2.3'], conditions: { ready: true }, nodeName: 'node-1', zone: 'a' }],
      ports: [{ name: 'http', port: 80, appProtocol: 'kubernetes.io/h2c' }],
    };
    expect(createErrors('discovery.k8s.io/EndpointSlice', slice(body))).toEqual([]);
  });

  it('checks the address type, addresses and ports', () => {
    expect(
      messages(
        createErrors(
          'discovery.k8s.io/EndpointSlice',
          slice({
            addressType: 'IPX',
            endpoints: [{ addresses: [] }],
            ports: [
              { name: 'Web', port: 80 },
              { name: 'Web', port: 81 },
            ],
          }),
        ),
      ),
    ).toEqual([
      'addressType: Unsupported value: "IPX": supported values: "FQDN", "IPv4", "IPv6"',
      'endpoints[0].addresses: Required value: must contain at least 1 address',
      `ports[0].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      `ports[1].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      'ports[1].name: Duplicate value: "Web"',
    ]);
  });

  it('checks zone and node hints: at most 8 each, no duplicates, valid names', () => {
    const hinted = (hints: Record<string, unknown>) =>
      slice({ addressType: 'IPv4', endpoints: [{ addresses: ['10.1.2.3'], hints }] });
    const named = (...names: string[]) => names.map((name) => ({ name }));
    expect(
      createErrors(
        'discovery.k8s.io/EndpointSlice',
        hinted({ forZones: named('a'), forNodes: named('node-1') }),
      ),
    ).toEqual([]);
    expect(
      messages(
        createErrors(
          'discovery.k8s.io/EndpointSlice',
          hinted({ forZones: named('a', 'a'), forNodes: named('node-1', 'node-1', 'Node_2') }),
        ),
      ),
    ).toEqual([
      'endpoints[0].hints.forZones[1].name: Duplicate value: "a"',
      'endpoints[0].hints.forNodes[1].name: Duplicate value: "node-1"',
      `endpoints[0].hints.forNodes[2].name: Invalid value: "Node_2": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
    const nine = Array.from({ length: 9 }, (_, i) => `node-${i}`);
    expect(
      messages(createErrors('discovery.k8s.io/EndpointSlice', hinted({ forNodes: named(...nine) }))),
    ).toEqual(['endpoints[0].hints.forNodes: Too many: 9: must have at most 8 items']);
  });

  it('keeps addressType immutable', () => {
    const old = defaulted(
      'discovery.k8s.io/EndpointSlice',
      slice({ metadata: { ...meta, resourceVersion: '2' }, addressType: 'IPv4' }),
    );
    expect(
      messages(updateErrors('discovery.k8s.io/EndpointSlice', { ...old, addressType: 'IPv6' }, old)),
    ).toEqual(['addressType: Invalid value: "IPv6": field is immutable']);
  });
});
