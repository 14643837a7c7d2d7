import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { createErrors, DNS_LABEL_RULE, defaulted, messages, updateErrors } from './support.js';

const podTemplate = {
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
};
const defaultedPodSpec = {
  containers: [
    {
      name: 'nginx',
      image: 'nginx:1.27',
      imagePullPolicy: 'IfNotPresent',
      resources: {},
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    },
  ],
  dnsPolicy: 'ClusterFirst',
  restartPolicy: 'Always',
  schedulerName: 'default-scheduler',
  securityContext: {},
  terminationGracePeriodSeconds: 30,
};

function workload(kind: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'apps/v1', kind, metadata: { name: 'web', namespace: 'default' }, spec };
}

describe('Deployment', () => {
  it('gets the apps/v1 defaults, with a defaulted pod template', () => {
    expect(
      defaulted(
        'apps/Deployment',
        workload('Deployment', { selector: { matchLabels: { app: 'web' } }, template: podTemplate }),
      ),
    ).toEqual(
      workload('Deployment', {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' }, creationTimestamp: null }, spec: defaultedPodSpec },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
      }),
    );
  });

  it('accepts a valid deployment', () => {
    expect(
      createErrors(
        'apps/Deployment',
        workload('Deployment', { selector: { matchLabels: { app: 'web' } }, template: podTemplate }),
      ),
    ).toEqual([]);
  });

  it.each([
    [
      'no selector',
      { template: podTemplate },
      [
        'spec.selector: Required value',
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
      ],
    ],
    [
      'a selector that does not match the template',
      { selector: { matchLabels: { app: 'api' } }, template: podTemplate },
      [
        'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
      ],
    ],
    [
      'an empty selector',
      { selector: {}, template: podTemplate },
      [
        'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
      ],
    ],
    [
      'a template restart policy other than Always',
      {
        selector: { matchLabels: { app: 'web' } },
        template: { ...podTemplate, spec: { ...podTemplate.spec, restartPolicy: 'Never' } },
      },
      ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'],
    ],
    [
      'zero maxUnavailable and maxSurge',
      {
        selector: { matchLabels: { app: 'web' } },
        template: podTemplate,
        strategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } },
      },
      [
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
      ],
    ],
    [
      'maxUnavailable above 100%',
      {
        selector: { matchLabels: { app: 'web' } },
        template: podTemplate,
        strategy: { rollingUpdate: { maxUnavailable: '110%' } },
      },
      [
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"110%"}: must not be greater than 100%',
      ],
    ],
    [
      'a progress deadline not above minReadySeconds',
      { selector: { matchLabels: { app: 'web' } }, template: podTemplate, minReadySeconds: 700 },
      ['spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds'],
    ],
    [
      'a bad template label (reported at spec.template.labels)',
      {
        selector: { matchLabels: { app: 'web' } },
        template: { ...podTemplate, metadata: { labels: { app: 'web', 'a b': 'c' } } },
      },
      [
        `spec.template.labels: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ],
    ],
    [
      'an invalid container in the template',
      {
        selector: { matchLabels: { app: 'web' } },
        template: { ...podTemplate, spec: { containers: [{ name: 'nginx' }] } },
      },
      ['spec.template.spec.containers[0].image: Required value'],
    ],
  ])('rejects %s', (_case, spec, expected) => {
    expect(messages(createErrors('apps/Deployment', workload('Deployment', spec)))).toEqual(expected);
  });

  it('keeps the selector immutable in apps/v1', () => {
    const stored = defaulted(
      'apps/Deployment',
      workload('Deployment', { selector: { matchLabels: { app: 'web' } }, template: podTemplate }),
    );
    (stored.metadata as Record<string, unknown>).resourceVersion = '9';
    const changed = structuredClone(stored);
    const spec = changed.spec as Record<string, unknown>;
    spec.selector = { matchLabels: { app: 'web2' } };
    spec.template = { ...podTemplate, metadata: { labels: { app: 'web2' } } };
    expect(messages(updateErrors('apps/Deployment', changed, stored))).toEqual([
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    ]);
  });
});

describe('ReplicaSet and DaemonSet', () => {
  it('defaults replicas and the update strategy', () => {
    expect(
      defaulted('apps/ReplicaSet', workload('ReplicaSet', { selector: { matchLabels: { app: 'web' } } }))
        .spec,
    ).toMatchObject({ replicas: 1 });
    expect(
      defaulted(
        'apps/DaemonSet',
        workload('DaemonSet', { selector: { matchLabels: { app: 'web' } }, template: podTemplate }),
      ).spec,
    ).toMatchObject({
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      revisionHistoryLimit: 10,
    });
  });

  it('requires one of maxUnavailable and maxSurge for DaemonSets', () => {
    const spec = {
      selector: { matchLabels: { app: 'web' } },
      template: podTemplate,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } },
    };
    expect(messages(createErrors('apps/DaemonSet', workload('DaemonSet', spec)))).toEqual([
      'spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0',
    ]);
  });

  it('reports a missing DaemonSet selector only as a label mismatch', () => {
    expect(
      messages(createErrors('apps/DaemonSet', workload('DaemonSet', { template: podTemplate }))),
    ).toEqual([
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
  });
});

describe('StatefulSet', () => {
  const spec = {
    serviceName: 'web',
    selector: { matchLabels: { app: 'web' } },
    template: podTemplate,
    volumeClaimTemplates: [
      {
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    ],
  };

  it('defaults the strategy, retention policy and claim templates', () => {
    const result = defaulted('apps/StatefulSet', workload('StatefulSet', spec)).spec as Record<
      string,
      unknown
    >;
    expect(result).toMatchObject({
      replicas: 1,
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      revisionHistoryLimit: 10,
    });
    expect(result.volumeClaimTemplates).toEqual([
      {
        kind: 'PersistentVolumeClaim',
        apiVersion: 'v1',
        metadata: { name: 'data', creationTimestamp: null },
        spec: {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: '1Gi' } },
          volumeMode: 'Filesystem',
        },
        status: { phase: 'Pending' },
      },
    ]);
  });

  it('uses DNS label names and validates only the template metadata', () => {
    const bad = workload('StatefulSet', {
      ...spec,
      template: { ...podTemplate, spec: { containers: [{ name: 'x' }] } },
    });
    (bad.metadata as Record<string, unknown>).name = 'web.v1';
    expect(messages(createErrors('apps/StatefulSet', bad))).toEqual([
      'metadata.name: Invalid value: "web.v1": must not contain dots',
    ]);
    expect(createErrors('apps/StatefulSet', workload('StatefulSet', spec))).toEqual([]);
  });

  it('forbids changes outside the mutable fields', () => {
    const stored = defaulted('apps/StatefulSet', workload('StatefulSet', spec));
    (stored.metadata as Record<string, unknown>).resourceVersion = '2';
    const changed = structuredClone(stored);
    (changed.spec as Record<string, unknown>).serviceName = 'other';
    expect(messages(updateErrors('apps/StatefulSet', changed, stored))).toEqual([
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
    const scaled = structuredClone(stored);
    (scaled.spec as Record<string, unknown>).replicas = 3;
    expect(updateErrors('apps/StatefulSet', scaled, stored)).toEqual([]);
  });

  it('has the DNS label rule text', () => {
    expect(DNS_LABEL_RULE).toContain('RFC 1123 label');
  });
});
