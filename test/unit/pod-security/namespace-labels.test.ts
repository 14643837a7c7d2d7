import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { BUILTIN_RESOURCES } from '../../../src/api/resources/builtin.js';
import type { AdmissionAttributes } from '../../../src/apiserver/admission/chain.js';
import { podSecurityAdmission } from '../../../src/apiserver/admission/plugins/pod-security.js';
import {
  existingPodWarnings,
  reviewNamespaceLabels,
} from '../../../src/apiserver/admission/pod-security/namespace.js';
import type { ResourceStore } from '../../../src/apiserver/registry/resource-store.js';
import { StatusError } from '../../../src/apiserver/status.js';

const ENFORCE = 'pod-security.kubernetes.io/enforce';
const RESTRICTED_LATEST = { level: 'restricted', version: 'latest' } as const;

function pod(name: string, spec: Record<string, unknown>, controllerUid?: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'x',
      ...(controllerUid
        ? {
            ownerReferences: [
              { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: controllerUid, controller: true },
            ],
          }
        : {}),
    },
    spec,
  };
}

const plain = (name: string, controllerUid?: string) =>
  pod(name, { containers: [{ name: 'c', image: 'nginx' }] }, controllerUid);
const privileged = (name: string) =>
  pod(name, { containers: [{ name: 'c', image: 'nginx', securityContext: { privileged: true } }] });
const compliant = (name: string) =>
  pod(name, {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [
      {
        name: 'c',
        image: 'nginx',
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
      },
    ],
  });

const PLAIN_RESTRICTED =
  'allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile';

describe('reviewNamespaceLabels', () => {
  const cases: [
    string,
    Parameters<typeof reviewNamespaceLabels>[0],
    ReturnType<typeof reviewNamespaceLabels>,
  ][] = [
    ['a create without labels', { operation: 'CREATE' }, { action: 'allow' }],
    [
      'a create with valid labels',
      { operation: 'CREATE', labels: { [ENFORCE]: 'restricted' } },
      { action: 'allow' },
    ],
    [
      'a create with an invalid level',
      { operation: 'CREATE', labels: { [ENFORCE]: 'foo' } },
      {
        action: 'reject',
        errors: [
          {
            field: 'metadata.labels[pod-security.kubernetes.io/enforce]',
            value: 'foo',
            detail: 'must be one of privileged, baseline, restricted',
          },
        ],
      },
    ],
    [
      'a create with an invalid version',
      { operation: 'CREATE', labels: { 'pod-security.kubernetes.io/warn-version': 'v2.0' } },
      {
        action: 'reject',
        errors: [
          {
            field: 'metadata.labels[pod-security.kubernetes.io/warn-version]',
            value: 'v2.0',
            detail: 'must be "latest" or "v1.x"',
          },
        ],
      },
    ],
    [
      'an update that tightens enforce',
      { operation: 'UPDATE', labels: { [ENFORCE]: 'restricted' }, oldLabels: { [ENFORCE]: 'baseline' } },
      { action: 'check-pods', enforce: RESTRICTED_LATEST },
    ],
    [
      'an update that sets enforce for the first time',
      { operation: 'UPDATE', labels: { [ENFORCE]: 'baseline' }, oldLabels: {} },
      { action: 'check-pods', enforce: { level: 'baseline', version: 'latest' } },
    ],
    [
      'an update that only changes the enforce version',
      {
        operation: 'UPDATE',
        labels: { [ENFORCE]: 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.20' },
        oldLabels: { [ENFORCE]: 'restricted' },
      },
      { action: 'check-pods', enforce: { level: 'baseline', version: 20 } },
    ],
    [
      'an update that relaxes enforce',
      { operation: 'UPDATE', labels: { [ENFORCE]: 'baseline' }, oldLabels: { [ENFORCE]: 'restricted' } },
      { action: 'allow' },
    ],
    [
      'an update to privileged',
      { operation: 'UPDATE', labels: { [ENFORCE]: 'privileged' }, oldLabels: {} },
      { action: 'allow' },
    ],
    [
      'an update that leaves enforce alone',
      {
        operation: 'UPDATE',
        labels: { [ENFORCE]: 'restricted', team: 'a' },
        oldLabels: { [ENFORCE]: 'restricted' },
      },
      { action: 'allow' },
    ],
    [
      'an unrelated update of a namespace whose labels were already invalid',
      { operation: 'UPDATE', labels: { [ENFORCE]: 'foo', team: 'a' }, oldLabels: { [ENFORCE]: 'foo' } },
      { action: 'allow' },
    ],
    [
      'an update that changes one invalid value into another',
      { operation: 'UPDATE', labels: { [ENFORCE]: 'bar' }, oldLabels: { [ENFORCE]: 'foo' } },
      {
        action: 'reject',
        errors: [
          {
            field: 'metadata.labels[pod-security.kubernetes.io/enforce]',
            value: 'bar',
            detail: 'must be one of privileged, baseline, restricted',
          },
        ],
      },
    ],
  ];

  it.each(cases)('%s', (_name, request, verdict) => {
    expect(reviewNamespaceLabels(request)).toEqual(verdict);
  });
});

describe('existingPodWarnings', () => {
  it('names the violating pods with their reasons, without details, after a summary line', () => {
    const warnings = existingPodWarnings('x', RESTRICTED_LATEST, [privileged('priv'), compliant('good')]);
    expect(warnings).toEqual([
      'existing pods in namespace "x" violate the new PodSecurity enforce level "restricted:latest"',
      `priv: privileged, ${PLAIN_RESTRICTED}`,
    ]);
  });

  it('groups pods with the same violations under the lexically first, counting the others', () => {
    const warnings = existingPodWarnings('x', RESTRICTED_LATEST, [
      plain('web-b'),
      plain('web-a'),
      plain('web-c'),
      privileged('p2'),
      privileged('p1'),
      pod('host', { hostNetwork: true, containers: [{ name: 'c', image: 'nginx' }] }),
    ]);
    expect(warnings).toEqual([
      'existing pods in namespace "x" violate the new PodSecurity enforce level "restricted:latest"',
      `host: host namespaces, ${PLAIN_RESTRICTED}`,
      `p1 (and 1 other pod): privileged, ${PLAIN_RESTRICTED}`,
      `web-a (and 2 other pods): ${PLAIN_RESTRICTED}`,
    ]);
  });

  it('says nothing when every pod meets the new level', () => {
    expect(existingPodWarnings('x', RESTRICTED_LATEST, [compliant('a')])).toEqual([]);
    expect(existingPodWarnings('x', { level: 'baseline', version: 'latest' }, [plain('a')])).toEqual([]);
  });

  it('checks only the first pods when over budget, one per controller before the other replicas', () => {
    const pods = [plain('rs-1', 'u1'), plain('rs-2', 'u1'), plain('rs-3', 'u1'), privileged('lone')];
    expect(existingPodWarnings('x', RESTRICTED_LATEST, pods, { maxPods: 2 })).toEqual([
      'new PodSecurity enforce level only checked against the first 2 of 4 existing pods',
      'existing pods in namespace "x" violate the new PodSecurity enforce level "restricted:latest"',
      `lone: privileged, ${PLAIN_RESTRICTED}`,
      `rs-1: ${PLAIN_RESTRICTED}`,
    ]);
    let clock = 0;
    const timed = existingPodWarnings('x', RESTRICTED_LATEST, pods, {
      timeoutMs: 1000,
      now: () => (clock += 1000),
    });
    expect(timed[0]).toBe(
      'new PodSecurity enforce level only checked against the first 1 of 4 existing pods',
    );
  });
});

describe('the PodSecurity plugin on namespaces', () => {
  const namespacesInfo = BUILTIN_RESOURCES.find(
    (info) => info.resource === 'namespaces' && info.group === '',
  )!;
  const listed: string[] = [];
  const pods = {
    async list(namespace: string) {
      listed.push(namespace);
      return { items: [JSON.stringify(privileged('priv')), JSON.stringify(compliant('good'))], revision: 1 };
    },
  } as unknown as ResourceStore;
  const namespaces = { find: async () => undefined } as unknown as ResourceStore;
  const plugin = podSecurityAdmission(namespaces, pods);
  /** The plugin's verdict: undefined when it admits, else what it threw. */
  const validate = (a: AdmissionAttributes) =>
    Promise.resolve()
      .then(() => plugin.validate!(a))
      .then(
        () => undefined,
        (error: unknown) => error,
      );

  function attributes(
    operation: 'CREATE' | 'UPDATE',
    labels: Record<string, string>,
    oldLabels?: Record<string, string>,
    subresource = '',
  ): AdmissionAttributes {
    const namespace = (l: Record<string, string>): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'x', labels: { 'kubernetes.io/metadata.name': 'x', ...l } },
    });
    return {
      operation,
      resource: namespacesInfo,
      subresource,
      namespace: '',
      name: 'x',
      object: namespace(labels),
      oldObject: oldLabels ? namespace(oldLabels) : undefined,
      dryRun: false,
      warnings: [],
    };
  }

  it("rejects an invalid level with PodSecurity's 422", async () => {
    const error = await validate(attributes('CREATE', { [ENFORCE]: 'foo' }));
    expect(error).toBeInstanceOf(StatusError);
    const status = (error as StatusError).toStatus();
    expect(status).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message:
        'Namespace "x" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "foo": must be one of privileged, baseline, restricted',
      details: {
        name: 'x',
        kind: 'Namespace',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: "foo": must be one of privileged, baseline, restricted',
            field: 'metadata.labels[pod-security.kubernetes.io/enforce]',
          },
        ],
      },
    });
  });

  it('reports every invalid label at once', async () => {
    const error = (await validate(
      attributes('CREATE', { [ENFORCE]: 'foo', 'pod-security.kubernetes.io/audit-version': '1.30' }),
    )) as StatusError;
    expect(error.message).toBe(
      'Namespace "x" is invalid: [metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "foo": must be one of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/audit-version]: Invalid value: "1.30": must be "latest" or "v1.x"]',
    );
  });

  it('warns about existing pods when enforce is tightened, and only then', async () => {
    const tightened = attributes('UPDATE', { [ENFORCE]: 'restricted' }, {});
    expect(await validate(tightened)).toBeUndefined();
    expect(listed).toEqual(['x']);
    expect(tightened.warnings).toEqual([
      'existing pods in namespace "x" violate the new PodSecurity enforce level "restricted:latest"',
      `priv: privileged, ${PLAIN_RESTRICTED}`,
    ]);
    const relaxed = attributes('UPDATE', { [ENFORCE]: 'baseline' }, { [ENFORCE]: 'restricted' });
    expect(await validate(relaxed)).toBeUndefined();
    const status = attributes('UPDATE', { [ENFORCE]: 'foo' }, {}, 'status');
    expect(await validate(status)).toBeUndefined();
    expect(listed).toEqual(['x']);
    expect([...relaxed.warnings, ...status.warnings]).toEqual([]);
  });
});
