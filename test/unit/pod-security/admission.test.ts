import { describe, expect, it } from 'vitest';
import {
  isSignificantPodUpdate,
  type PodSecurityObject,
  podSecurityDecision,
} from '../../../src/apiserver/admission/pod-security/admission.js';

const restrictedNs = { 'pod-security.kubernetes.io/enforce': 'restricted' };
const plainPod: PodSecurityObject = {
  metadata: { name: 'x' },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
};
const restrictedMessage =
  'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
  'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
  'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
  'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

describe('podSecurityDecision for pods', () => {
  it('denies a plain pod in a restricted namespace with the kubectl-visible message', () => {
    const decision = podSecurityDecision({
      namespaceLabels: restrictedNs,
      kind: 'Pod',
      object: plainPod,
      operation: 'CREATE',
    });
    expect(decision.deny).toBe(`violates PodSecurity "restricted:latest": ${restrictedMessage}`);
    // Denied requests get no warnings, even though warn defaulted to restricted too.
    expect(decision.warnings).toEqual([]);
    expect(decision.auditAnnotations['pod-security.kubernetes.io/enforce-policy']).toBe('restricted:latest');
  });

  it('allows in a baseline namespace what restricted denies, and warns at the warn level', () => {
    const decision = podSecurityDecision({
      namespaceLabels: {
        'pod-security.kubernetes.io/enforce': 'baseline',
        'pod-security.kubernetes.io/warn': 'restricted',
        'pod-security.kubernetes.io/warn-version': 'v1.33',
      },
      kind: 'Pod',
      object: plainPod,
      operation: 'CREATE',
    });
    expect(decision.deny).toBeUndefined();
    expect(decision.warnings).toEqual([`would violate PodSecurity "restricted:v1.33": ${restrictedMessage}`]);
  });

  it('denies baseline violations in a baseline namespace', () => {
    const decision = podSecurityDecision({
      namespaceLabels: {
        'pod-security.kubernetes.io/enforce': 'baseline',
        'pod-security.kubernetes.io/enforce-version': 'v1.30',
      },
      kind: 'Pod',
      object: {
        metadata: { name: 'x' },
        spec: { hostNetwork: true, containers: [{ name: 'c', securityContext: { privileged: true } }] },
      },
      operation: 'CREATE',
    });
    expect(decision.deny).toBe(
      'violates PodSecurity "baseline:v1.30": host namespaces (hostNetwork=true), privileged (container "c" must not set securityContext.privileged=true)',
    );
  });

  it('only warns in a warn-only namespace', () => {
    const decision = podSecurityDecision({
      namespaceLabels: { 'pod-security.kubernetes.io/warn': 'restricted' },
      kind: 'Pod',
      object: plainPod,
      operation: 'CREATE',
    });
    expect(decision.deny).toBeUndefined();
    expect(decision.warnings).toEqual([
      `would violate PodSecurity "restricted:latest": ${restrictedMessage}`,
    ]);
    expect(decision.auditAnnotations['pod-security.kubernetes.io/enforce-policy']).toBe('privileged:latest');
  });

  it('records audit violations without warning', () => {
    const decision = podSecurityDecision({
      namespaceLabels: { 'pod-security.kubernetes.io/audit': 'restricted' },
      kind: 'Pod',
      object: plainPod,
      operation: 'CREATE',
    });
    expect(decision).toEqual({
      warnings: [],
      auditAnnotations: {
        'pod-security.kubernetes.io/enforce-policy': 'privileged:latest',
        'pod-security.kubernetes.io/audit-violations': `would violate PodSecurity "restricted:latest": ${restrictedMessage}`,
      },
    });
  });

  it('allows anything in an unlabelled namespace', () => {
    const decision = podSecurityDecision({ kind: 'Pod', object: plainPod, operation: 'CREATE' });
    expect(decision).toEqual({
      warnings: [],
      auditAnnotations: { 'pod-security.kubernetes.io/enforce-policy': 'privileged:latest' },
    });
  });

  it('enforces restricted when the enforce label is invalid, noting the parse error', () => {
    const decision = podSecurityDecision({
      namespaceLabels: { 'pod-security.kubernetes.io/enforce': 'strict' },
      kind: 'Pod',
      object: plainPod,
      operation: 'CREATE',
    });
    expect(decision.deny).toBe(`violates PodSecurity "restricted:latest": ${restrictedMessage}`);
    expect(decision.auditAnnotations['pod-security.kubernetes.io/error']).toBe(
      'Failed to parse policy: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
    );
  });

  it('does not re-check updates that leave images alone', () => {
    const labelled = { ...plainPod, metadata: { name: 'x', labels: { a: 'b' } } };
    expect(
      podSecurityDecision({
        namespaceLabels: restrictedNs,
        kind: 'Pod',
        object: labelled,
        oldObject: plainPod,
        operation: 'UPDATE',
      }).deny,
    ).toBeUndefined();
    const newImage = { metadata: { name: 'x' }, spec: { containers: [{ name: 'c', image: 'nginx:2' }] } };
    expect(
      podSecurityDecision({
        namespaceLabels: restrictedNs,
        kind: 'Pod',
        object: newImage,
        oldObject: plainPod,
        operation: 'UPDATE',
      }).deny,
    ).toMatch(/^violates PodSecurity "restricted:latest"/);
  });

  it('ignores pod subresources that cannot change the spec, but checks ephemeral containers', () => {
    const base = {
      namespaceLabels: restrictedNs,
      kind: 'Pod',
      object: plainPod,
      operation: 'UPDATE' as const,
    };
    expect(podSecurityDecision({ ...base, subresource: 'status', oldObject: plainPod }).deny).toBeUndefined();
    const withDebug = {
      ...plainPod,
      spec: {
        containers: [{ name: 'c', image: 'nginx' }],
        ephemeralContainers: [{ name: 'debug', image: 'busybox' }],
      },
    };
    expect(
      podSecurityDecision({
        ...base,
        subresource: 'ephemeralcontainers',
        object: withDebug,
        oldObject: plainPod,
      }).deny,
    ).toContain('containers "c", "debug" must set securityContext.allowPrivilegeEscalation=false');
  });

  it('honours namespace, user and runtime class exemptions', () => {
    const base = {
      namespaceLabels: restrictedNs,
      kind: 'Pod',
      object: plainPod,
      operation: 'CREATE' as const,
    };
    const exemptions = { namespaces: ['kube-system'], usernames: ['admin'], runtimeClasses: ['kata'] };
    expect(podSecurityDecision({ ...base, namespace: 'kube-system', exemptions })).toEqual({
      warnings: [],
      auditAnnotations: { 'pod-security.kubernetes.io/exempt': 'namespace' },
    });
    expect(podSecurityDecision({ ...base, username: 'admin', exemptions }).deny).toBeUndefined();
    const kataPod = { ...plainPod, spec: { runtimeClassName: 'kata', containers: [{ name: 'c' }] } };
    expect(podSecurityDecision({ ...base, object: kataPod, exemptions }).auditAnnotations).toEqual({
      'pod-security.kubernetes.io/exempt': 'runtimeClass',
    });
    expect(podSecurityDecision({ ...base, namespace: 'default', exemptions }).deny).toBeDefined();
  });
});

describe('podSecurityDecision for workload resources', () => {
  const deployment: PodSecurityObject = {
    metadata: { name: 'web' },
    spec: { selector: {}, template: { metadata: { labels: { app: 'web' } }, spec: plainPod.spec } },
  };

  it('warns about a Deployment template in a restricted namespace instead of denying it', () => {
    const decision = podSecurityDecision({
      namespaceLabels: restrictedNs,
      kind: 'Deployment',
      object: deployment,
      operation: 'CREATE',
    });
    expect(decision.deny).toBeUndefined();
    expect(decision.warnings).toEqual([
      `would violate PodSecurity "restricted:latest": ${restrictedMessage}`,
    ]);
    expect(decision.auditAnnotations['pod-security.kubernetes.io/enforce-policy']).toBeUndefined();
  });

  it('finds the template of a CronJob and a PodTemplate', () => {
    const cronJob = { spec: { jobTemplate: { spec: { template: { spec: plainPod.spec } } } } };
    const podTemplate = { template: { spec: plainPod.spec } };
    for (const [kind, object] of [
      ['CronJob', cronJob],
      ['PodTemplate', podTemplate],
    ] as const) {
      expect(
        podSecurityDecision({ namespaceLabels: restrictedNs, kind, object, operation: 'CREATE' }).warnings,
      ).toHaveLength(1);
    }
  });

  it('stays silent when only enforce would apply, for template subresources, and for other kinds', () => {
    const onlyEnforce = {
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/warn': 'privileged',
    };
    expect(
      podSecurityDecision({
        namespaceLabels: onlyEnforce,
        kind: 'Deployment',
        object: deployment,
        operation: 'CREATE',
      }),
    ).toEqual({ warnings: [], auditAnnotations: {} });
    expect(
      podSecurityDecision({
        namespaceLabels: restrictedNs,
        kind: 'Deployment',
        object: deployment,
        operation: 'UPDATE',
        subresource: 'scale',
      }).warnings,
    ).toEqual([]);
    expect(
      podSecurityDecision({
        namespaceLabels: restrictedNs,
        kind: 'ConfigMap',
        object: deployment,
        operation: 'CREATE',
      }).warnings,
    ).toEqual([]);
  });

  it('skips a ReplicationController without a template', () => {
    expect(
      podSecurityDecision({
        namespaceLabels: restrictedNs,
        kind: 'ReplicationController',
        object: { spec: {} },
        operation: 'CREATE',
      }).warnings,
    ).toEqual([]);
  });
});

describe('isSignificantPodUpdate', () => {
  const pod = (containers: object[], extra: object = {}) => ({ spec: { containers, ...extra } });
  it.each([
    ['same images', pod([{ name: 'c', image: 'a' }]), pod([{ name: 'c', image: 'a' }]), false],
    ['changed image', pod([{ name: 'c', image: 'b' }]), pod([{ name: 'c', image: 'a' }]), true],
    ['added container', pod([{ name: 'c' }, { name: 'd' }]), pod([{ name: 'c' }]), true],
    ['added init container', pod([], { initContainers: [{ name: 'i' }] }), pod([]), true],
    [
      'same ephemeral containers',
      pod([], { ephemeralContainers: [{ name: 'e', image: 'x' }] }),
      pod([], { ephemeralContainers: [{ name: 'e', image: 'x' }] }),
      false,
    ],
  ])('%s', (_name, next, old, expected) => {
    expect(isSignificantPodUpdate(next, old)).toBe(expected);
  });
});
