import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import {
  createErrors,
  DNS_LABEL_RULE,
  defaulted,
  messages,
  pod,
  subresourceUpdateErrors,
  summaries,
  updateErrors,
} from './support.js';

function container(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'app', image: 'nginx:1.27', ...overrides };
}

function podWith(spec: Record<string, unknown>): KubeObject {
  return pod({}, spec);
}

describe('pod validation on create', () => {
  it('accepts a valid pod with volumes, probes and resources', () => {
    const valid = podWith({
      containers: [
        container({
          ports: [{ name: 'http', containerPort: 80 }],
          env: [
            { name: 'MODE', value: 'prod' },
            { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          ],
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
          resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '1', memory: '128Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 'http' } },
        }),
      ],
      initContainers: [
        container({ name: 'init' }),
        container({
          name: 'sidecar',
          restartPolicy: 'Always',
          startupProbe: { exec: { command: ['true'] } },
        }),
      ],
      volumes: [{ name: 'data', emptyDir: { sizeLimit: '1Gi' } }],
      tolerations: [
        { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
      ],
      nodeSelector: { 'kubernetes.io/os': 'linux' },
    });
    expect(createErrors('/Pod', valid)).toEqual([]);
  });

  it.each([
    [
      'a missing container name',
      { containers: [{ image: 'x' }] },
      ['spec.containers[0].name: Required value'],
    ],
    ['a missing image', { containers: [{ name: 'app' }] }, ['spec.containers[0].image: Required value']],
    ['no containers', { containers: [] }, ['spec.containers: Required value']],
    [
      'a container name that is not a DNS label',
      { containers: [container({ name: 'App' })] },
      [`spec.containers[0].name: Invalid value: "App": ${DNS_LABEL_RULE}`],
    ],
    [
      'duplicate container names',
      { containers: [container(), container()] },
      ['spec.containers[1].name: Duplicate value: "app"'],
    ],
    [
      'an init container named like a container',
      { initContainers: [container()] },
      ['spec.initContainers[0].name: Duplicate value: "app"'],
    ],
    [
      'a mount of an unknown volume',
      { containers: [container({ volumeMounts: [{ name: 'data', mountPath: '/data' }] })] },
      ['spec.containers[0].volumeMounts[0].name: Not found: "data"'],
    ],
    [
      'a subPath that climbs out of its volume, or is absolute',
      {
        containers: [
          container({
            volumeMounts: [
              { name: 'data', mountPath: '/a', subPath: 'logs/../../etc' },
              { name: 'data', mountPath: '/b', subPath: '/etc' },
              { name: 'data', mountPath: '/c', subPathExpr: '$(POD)/..' },
            ],
          }),
        ],
        volumes: [{ name: 'data', emptyDir: {} }],
      },
      // Upstream names these fields without the mount's index (ValidateVolumeMounts passes fldPath).
      [
        `spec.containers[0].volumeMounts.subPath: Invalid value: "logs/../../etc": must not contain '..'`,
        'spec.containers[0].volumeMounts.subPath: Invalid value: "/etc": must be a relative path',
        `spec.containers[0].volumeMounts.subPathExpr: Invalid value: "$(POD)/..": must not contain '..'`,
      ],
    ],
    [
      'two volumes with one name',
      {
        volumes: [
          { name: 'v', emptyDir: {} },
          { name: 'v', emptyDir: {} },
        ],
      },
      ['spec.volumes[1].name: Duplicate value: "v"'],
    ],
    [
      'a volume with two sources',
      { volumes: [{ name: 'v', emptyDir: {}, configMap: { name: 'c' } }] },
      ['spec.volumes[0].configMap: Forbidden: may not specify more than 1 volume type'],
    ],
    [
      'a secret volume without a secret name',
      { volumes: [{ name: 'v', secret: {} }] },
      ['spec.volumes[0].secret.secretName: Required value'],
    ],
    [
      'an unsupported port protocol',
      { containers: [container({ ports: [{ containerPort: 80, protocol: 'HTTP' }] })] },
      [
        'spec.containers[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
      ],
    ],
    [
      'a port out of range',
      { containers: [container({ ports: [{ containerPort: 70000 }] })] },
      [
        'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      ],
    ],
    [
      'an env name with "="',
      { containers: [container({ env: [{ name: 'A=B', value: 'x' }] })] },
      [
        `spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
      ],
    ],
    [
      'requests above limits',
      { containers: [container({ resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } })] },
      [
        'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
      ],
    ],
    [
      'a resource name that is neither standard nor qualified',
      { containers: [container({ resources: { limits: { gpu: '1' } } })] },
      [
        'spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
        'spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers',
        // Pods copy limits into missing requests before validation.
        'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
        'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for containers',
      ],
    ],
    [
      'a negative quantity',
      { containers: [container({ resources: { requests: { memory: '-1Mi' } } })] },
      [
        'spec.containers[0].resources.requests[memory]: Invalid value: "-1Mi": must be greater than or equal to 0',
      ],
    ],
    [
      'an unknown restart policy',
      { restartPolicy: 'Sometimes' },
      [
        'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      ],
    ],
    [
      'an unknown DNS policy',
      { dnsPolicy: 'Cluster' },
      [
        'spec.dnsPolicy: Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
      ],
    ],
    [
      'a liveness probe needing more than one success',
      { containers: [container({ livenessProbe: { exec: { command: ['true'] }, successThreshold: 2 } })] },
      ['spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1'],
    ],
    [
      'a probe without a handler',
      { containers: [container({ readinessProbe: { periodSeconds: 5 } })] },
      ['spec.containers[0].readinessProbe: Required value: must specify a handler type'],
    ],
    [
      'a probe on a plain init container',
      { initContainers: [container({ name: 'init', livenessProbe: { exec: { command: ['x'] } } })] },
      [
        'spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
      ],
    ],
    [
      'a restart policy on a regular container',
      { containers: [container({ restartPolicy: 'Always' })] },
      ['spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers'],
    ],
    [
      'an image padded with whitespace',
      { containers: [container({ image: ' nginx' })] },
      ['spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace'],
    ],
    [
      'a host port that differs from the container port with host networking',
      { hostNetwork: true, containers: [container({ ports: [{ containerPort: 80, hostPort: 8080 }] })] },
      [
        'spec.containers[0].ports[0].hostPort: Invalid value: 8080: must match `containerPort` when `hostNetwork` is true',
      ],
    ],
    [
      'clashing host ports',
      {
        containers: [
          container({ ports: [{ containerPort: 80, hostPort: 8080 }] }),
          container({ name: 'b', ports: [{ containerPort: 81, hostPort: 8080 }] }),
        ],
      },
      ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"'],
    ],
    [
      'a negative user id',
      { securityContext: { runAsUser: -1 } },
      ['spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive'],
    ],
    [
      'a toleration with an empty key and Equal',
      { tolerations: [{ operator: 'Equal', value: 'x' }] },
      [
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
      ],
    ],
    [
      'ephemeral containers on create',
      { ephemeralContainers: [{ name: 'debug', image: 'busybox' }] },
      ['spec.ephemeralContainers: Forbidden: cannot be set on create'],
    ],
    [
      'a bad activeDeadlineSeconds',
      { activeDeadlineSeconds: 0 },
      ['spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive'],
    ],
    [
      'an env var from a field Kubernetes does not expose',
      {
        containers: [
          container({ env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'metadata.labels' } } }] }),
        ],
      },
      [
        'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"',
      ],
    ],
  ])('rejects %s', (_case, spec, expected) => {
    expect(messages(createErrors('/Pod', podWith(spec)))).toEqual(expected);
  });

  it('reports the pod name rule', () => {
    expect(summaries(createErrors('/Pod', pod({ name: 'Web' })))).toEqual([
      expect.objectContaining({ type: 'FieldValueInvalid', field: 'metadata.name' }),
    ]);
  });
});

describe('pod validation on update', () => {
  const stored: KubeObject = {
    ...defaulted('/Pod', pod()),
    metadata: { name: 'web', namespace: 'default', uid: 'u', resourceVersion: '7' },
  };

  function changed(mutate: (spec: Record<string, unknown>) => void): KubeObject {
    const next = structuredClone(stored);
    mutate(next.spec as Record<string, unknown>);
    return next;
  }

  it('allows changing a container image', () => {
    const next = changed((spec) => {
      (spec.containers as Record<string, unknown>[])[0]!.image = 'nginx:1.28';
    });
    expect(updateErrors('/Pod', next, stored)).toEqual([]);
  });

  it('forbids other spec changes with the Kubernetes message', () => {
    const next = changed((spec) => {
      spec.restartPolicy = 'Never';
    });
    const errors = updateErrors('/Pod', next, stored);
    expect(summaries(errors)).toHaveLength(1);
    expect(errors[0]!.field).toBe('spec');
    expect(errors[0]!.type).toBe('FieldValueForbidden');
    expect(errors[0]!.detail.split('\n')[0]).toBe(
      'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
    );
  });

  it('forbids adding containers', () => {
    const next = changed((spec) => {
      (spec.containers as unknown[]).push(container({ name: 'second' }));
    });
    expect(messages(updateErrors('/Pod', next, stored))).toContain(
      'spec.containers: Forbidden: pod updates may not add or remove containers',
    );
  });

  it('lets activeDeadlineSeconds only decrease', () => {
    const withDeadline = changed((spec) => {
      spec.activeDeadlineSeconds = 100;
    });
    const longer = structuredClone(withDeadline);
    (longer.spec as Record<string, unknown>).activeDeadlineSeconds = 200;
    expect(messages(updateErrors('/Pod', longer, withDeadline))).toEqual([
      'spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value',
    ]);
    expect(updateErrors('/Pod', withDeadline, stored)).toEqual([]);
  });

  it('allows adding tolerations but not changing them', () => {
    const tolerating = changed((spec) => {
      spec.tolerations = [{ key: 'a', operator: 'Exists' }];
    });
    expect(updateErrors('/Pod', tolerating, stored)).toEqual([]);
    const modified = structuredClone(tolerating);
    (modified.spec as Record<string, unknown>).tolerations = [{ key: 'b', operator: 'Exists' }];
    expect(messages(updateErrors('/Pod', modified, tolerating))).toEqual([
      'spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds',
    ]);
  });
});

describe('pods/ephemeralcontainers', () => {
  const stored: KubeObject = {
    ...defaulted('/Pod', pod()),
    metadata: { name: 'web', namespace: 'default', uid: 'u', resourceVersion: '7' },
  };
  const debug = {
    name: 'debug',
    image: 'busybox',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'Always',
  };
  const withEphemeral = (base: KubeObject, ...ephemeral: Record<string, unknown>[]): KubeObject => ({
    ...base,
    spec: { ...(base.spec as Record<string, unknown>), ephemeralContainers: ephemeral },
  });
  const update = (next: KubeObject, old: KubeObject) =>
    messages(subresourceUpdateErrors('/Pod', 'ephemeralcontainers', next, old));

  it('adds an ephemeral container, checked as one (no ports, a target that exists)', () => {
    expect(update(withEphemeral(stored, debug), stored)).toEqual([]);
    const bad = withEphemeral(stored, {
      ...debug,
      ports: [{ containerPort: 80 }],
      targetContainerName: 'nope',
    });
    expect(update(bad, stored)).toEqual(
      expect.arrayContaining([
        'spec.ephemeralContainers[0].targetContainerName: Not found: "nope"',
        'spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container',
      ]),
    );
  });

  it('never removes or changes one', () => {
    const old = withEphemeral(stored, debug);
    expect(update(withEphemeral(stored), old)).toEqual([
      'spec.ephemeralContainers: Forbidden: existing ephemeral containers "debug" may not be removed\n',
    ]);
    const [changedMessage] = update(withEphemeral(stored, { ...debug, image: 'other' }), old);
    expect(changedMessage?.split('\n')[0]).toBe(
      'spec.ephemeralContainers.debug: Forbidden: existing ephemeral containers "debug" may not be changed',
    );
  });
});
