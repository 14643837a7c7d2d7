// Deployment arithmetic without a control plane: surge and unavailability rounding, how far a
// rollout step may go, proportions, revision bookkeeping, template comparison, and the
// pod-template hash against values Kubernetes computes for the same templates.
import { describe, expect, it } from 'vitest';
import type { Deployment, ReplicaSet } from '../../../src/api/types/apps-v1.generated.js';
import type { PodTemplateSpec } from '../../../src/api/types/core-v1.generated.js';
import {
  lastRevision,
  maxRevision,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  nextRevision,
  proportion,
  resolveFenceposts,
  scaledValue,
  setNewReplicaSetAnnotations,
} from '../../../src/controllers/deployment/deployment-util.js';
import { spewPrint } from '../../../src/controllers/deployment/go-spew.js';
import {
  computePodTemplateHash,
  safeEncodeString,
} from '../../../src/controllers/deployment/pod-template-hash.js';
import { quantityInternals } from '../../../src/controllers/deployment/quantity-internals.js';
import { equalIgnoreHash } from '../../../src/controllers/deployment/template-equality.js';

function rolling(replicas: number, maxSurge: number | string, maxUnavailable: number | string): Deployment {
  return {
    metadata: { name: 'd' },
    spec: {
      replicas,
      selector: {},
      template: {},
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } },
    },
  };
}

function replicaSet(name: string, replicas: number, annotations: Record<string, string> = {}): ReplicaSet {
  return { metadata: { name, annotations }, spec: { replicas, selector: {} } };
}

describe('fenceposts', () => {
  it('rounds surge up and unavailability down, and never lets both be zero', () => {
    expect(resolveFenceposts('25%', '25%', 10)).toEqual({ surge: 3, unavailable: 2 });
    expect(resolveFenceposts('25%', '25%', 1)).toEqual({ surge: 1, unavailable: 0 });
    expect(resolveFenceposts(0, '25%', 3)).toEqual({ surge: 0, unavailable: 1 });
    expect(resolveFenceposts('0%', '10%', 5)).toEqual({ surge: 0, unavailable: 1 });
    expect(maxUnavailable(rolling(2, 0, 5))).toBe(2);
    expect(maxUnavailable(rolling(0, 1, 1))).toBe(0);
    expect(
      maxSurge({ ...rolling(3, 1, 1), spec: { ...rolling(3, 1, 1).spec!, strategy: { type: 'Recreate' } } }),
    ).toBe(0);
  });

  it('refuses strings that are not percentages, with Kubernetes messages', () => {
    expect(() => scaledValue('5', 10, true)).toThrow(
      'invalid value for IntOrString: invalid type: string is not a percentage',
    );
    expect(() => scaledValue('x%', 10, true)).toThrow(/invalid value "x%"/);
  });

  it('lets the new ReplicaSet grow only within the surge', () => {
    const d = rolling(10, 3, 2);
    const newRS = replicaSet('new', 0);
    expect(newRSNewReplicas(d, [replicaSet('old', 10), newRS], newRS)).toBe(3);
    expect(newRSNewReplicas(d, [replicaSet('old', 8), replicaSet('new', 5)], replicaSet('new', 5))).toBe(5);
    expect(newRSNewReplicas(d, [replicaSet('old', 2), replicaSet('new', 9)], replicaSet('new', 9))).toBe(10);
  });
});

describe('proportional scaling', () => {
  it('shares added replicas by size against the max-replicas the ReplicaSets were sized for', () => {
    const d = rolling(15, 3, 2);
    const old = replicaSet('old', 8, { 'deployment.kubernetes.io/max-replicas': '13' });
    const fresh = replicaSet('new', 5, { 'deployment.kubernetes.io/max-replicas': '13' });
    expect(proportion(old, d, 5, 0)).toBe(3);
    expect(proportion(fresh, d, 5, 3)).toBe(2);
    // Never more than what is left to give.
    expect(proportion(fresh, d, 5, 4)).toBe(1);
    // Scaling to zero takes everything away.
    expect(proportion(old, rolling(0, 3, 2), -13, 0)).toBe(-8);
  });
});

describe('revisions', () => {
  it('raises a reused ReplicaSet to the new revision and remembers the old one', () => {
    const d: Deployment = {
      metadata: { annotations: { 'kubernetes.io/change-cause': 'undo' } },
      spec: { selector: {}, template: {} },
    };
    const rs = replicaSet('rs', 1, { 'deployment.kubernetes.io/revision': '1' });
    expect(setNewReplicaSetAnnotations(d, rs, 3n, true)).toBe(true);
    expect(rs.metadata!.annotations).toEqual({
      'deployment.kubernetes.io/revision': '3',
      'deployment.kubernetes.io/revision-history': '1',
      'kubernetes.io/change-cause': 'undo',
    });
    setNewReplicaSetAnnotations(d, rs, 5n, true);
    expect(rs.metadata!.annotations!['deployment.kubernetes.io/revision-history']).toBe('1,3');
    // A revision that is not behind is left alone.
    expect(setNewReplicaSetAnnotations(d, rs, 4n, true)).toBe(false);
  });

  it('finds the previous revision', () => {
    const at = (revision: string) =>
      replicaSet(revision, 0, { 'deployment.kubernetes.io/revision': revision });
    expect(lastRevision([at('3'), at('1'), at('7'), at('x')])).toBe(3n);
    expect(lastRevision([at('2')])).toBe(0n);
  });

  it('keeps int64 revisions exact past 2^53 and skips what is not an int64', () => {
    const at = (revision: string) =>
      replicaSet(revision, 0, { 'deployment.kubernetes.io/revision': revision });
    const big = at('3546343826724305832');
    expect(maxRevision([at('7'), big, at('9223372036854775808')])).toBe(3546343826724305832n);
    expect(nextRevision(maxRevision([big]))).toBe(3546343826724305833n);
    expect(nextRevision(9223372036854775807n)).toBe(-9223372036854775808n);
    const d: Deployment = { spec: { selector: {}, template: {} } };
    const rs = replicaSet('rs', 1, { 'deployment.kubernetes.io/revision': '3546343826724305832' });
    expect(setNewReplicaSetAnnotations(d, rs, 3546343826724305833n, true)).toBe(true);
    expect(rs.metadata!.annotations!['deployment.kubernetes.io/revision']).toBe('3546343826724305833');
    expect(rs.metadata!.annotations!['deployment.kubernetes.io/revision-history']).toBe(
      '3546343826724305832',
    );
  });
});

describe('template comparison', () => {
  const template = (extra: object = {}): PodTemplateSpec => ({
    metadata: { labels: { app: 'a' } },
    spec: { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: '1' } } }], ...extra },
  });

  it('ignores the hash label, empty versus missing lists and maps, and how a quantity is written', () => {
    const hashed = template();
    hashed.metadata!.labels!['pod-template-hash'] = 'abc';
    expect(equalIgnoreHash(template(), hashed)).toBe(true);
    expect(equalIgnoreHash(template(), template({ volumes: [], nodeSelector: {} }))).toBe(true);
    const milli = template();
    milli.spec!.containers[0]!.resources = { limits: { cpu: '1000m' } };
    expect(equalIgnoreHash(template(), milli)).toBe(true);
  });

  it('tells apart what Go tells apart', () => {
    expect(equalIgnoreHash(template(), template({ automountServiceAccountToken: false }))).toBe(false);
    expect(equalIgnoreHash(template(), template({ hostNetwork: true }))).toBe(false);
    const image = template();
    image.spec!.containers[0]!.image = 'j';
    expect(equalIgnoreHash(template(), image)).toBe(false);
  });
});

describe('pod-template hash', () => {
  // What `kubectl create deployment nginx --image=nginx` stores; Kubernetes names its ReplicaSet
  // nginx-5869d7778c.
  const nginx: PodTemplateSpec = {
    metadata: { labels: { app: 'nginx' } },
    spec: {
      containers: [
        {
          name: 'nginx',
          image: 'nginx',
          resources: {},
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'Always',
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      securityContext: {},
      schedulerName: 'default-scheduler',
    },
  };

  it('is the hash Kubernetes computes, with and without a collision count', () => {
    expect(computePodTemplateHash(nginx)).toBe('5869d7778c');
    // Reference values from Kubernetes' ComputeHash on the same templates.
    expect(computePodTemplateHash(nginx, 1)).toBe('5dbdb99998');
    const quantities: PodTemplateSpec = {
      metadata: { labels: { x: 'y' } },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'i',
            resources: {
              limits: { cpu: '0', memory: '0.1', 'hugepages-2Mi': '100Mi' },
              requests: { cpu: '1.5', memory: '3000', storage: '12345678901234567890' },
            },
          },
        ],
        overhead: { cpu: '250m' },
      },
    };
    expect(computePodTemplateHash(quantities)).toBe('67f5d96495');
  });

  it('prints values the way go-spew does', () => {
    const printed = spewPrint('core.PodTemplateSpec', nginx);
    expect(
      printed.startsWith(
        '(v1.PodTemplateSpec){ObjectMeta:(v1.ObjectMeta){Name:(string) GenerateName:(string) ',
      ),
    ).toBe(true);
    expect(printed).toContain(
      'CreationTimestamp:(v1.Time){Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}} DeletionTimestamp:(*v1.Time)<nil>',
    );
    expect(printed).toContain(
      'Labels:(map[string]string)map[app:nginx] Annotations:(map[string]string)<nil>',
    );
    expect(printed).toContain('TerminationGracePeriodSeconds:(*int64)30 ');
    expect(printed).toContain(
      'SecurityContext:(*v1.PodSecurityContext){SELinuxOptions:(*v1.SELinuxOptions)<nil> ',
    );
    expect(safeEncodeString('0123456789')).toBe('456789bcdf');
  });

  it('reads quantities as Go parses them', () => {
    expect(quantityInternals('100m')).toEqual({
      kind: 'int64',
      value: 100n,
      scale: -3,
      text: '100m',
      format: 'DecimalSI',
    });
    // Not canonical: the text is not kept.
    expect(quantityInternals('1000m')).toEqual({
      kind: 'int64',
      value: 1000n,
      scale: -3,
      text: '',
      format: 'DecimalSI',
    });
    expect(quantityInternals('1Gi')).toEqual({
      kind: 'int64',
      value: 1n << 30n,
      scale: 0,
      text: '1Gi',
      format: 'BinarySI',
    });
    expect(quantityInternals('1.5Gi')).toEqual({
      kind: 'dec',
      unscaled: 1610612736000000000n,
      scale: 9,
      format: 'BinarySI',
    });
    expect(quantityInternals('0')).toEqual({
      kind: 'int64',
      value: 0n,
      scale: 0,
      text: '0',
      format: 'DecimalSI',
    });
    expect(quantityInternals('1Q')).toBeUndefined();
  });
});
