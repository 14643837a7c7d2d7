import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { defaulted, messages, pod, statusUpdateErrors } from './support.js';

const FORBIDDEN_TRANSITION = 'may not be transitioned to non-terminated state';

/** A stored, bound pod with a status, as the kubelet would update it. */
function stored(spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}): KubeObject {
  const base = defaulted(
    '/Pod',
    pod(
      { uid: 'u1', resourceVersion: '5', creationTimestamp: '2026-01-01T00:00:00Z' },
      { nodeName: 'n1', ...spec },
    ),
  );
  return { ...base, status: { phase: 'Pending', qosClass: 'BestEffort', ...status } };
}

/** The same pod with a new status (the registry keeps the stored spec and metadata). */
function withStatus(old: KubeObject, status: Record<string, unknown>): KubeObject {
  return { ...structuredClone(old), status: { ...(old.status as object), ...status } };
}

const terminated = (name: string, exitCode: number) => ({
  name,
  state: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' } },
});
const running = (name: string) => ({ name, state: { running: { startedAt: '2026-01-01T00:00:05Z' } } });

describe('pod status validation (pods/status)', () => {
  const cases: {
    name: string;
    spec?: Record<string, unknown>;
    before?: Record<string, unknown>;
    after: Record<string, unknown>;
    errors: string[];
  }[] = [
    {
      name: 'a kubelet report: running, ready, with addresses',
      after: {
        phase: 'Running',
        podIP: '10.244.1.5',
        podIPs: [{ ip: '10.244.1.5' }],
        conditions: [
          { type: 'Ready', status: 'True' },
          { type: 'example.com/gate', status: 'True' },
        ],
        containerStatuses: [running('app')],
      },
      errors: [],
    },
    {
      name: 'a condition type that is not a qualified name (reported under metadata, as upstream does)',
      after: { conditions: [{ type: 'bad type!', status: 'True' }] },
      errors: [
        "metadata.conditions[0].Type: Invalid value: \"bad type!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    },
    {
      name: 'a nominated node name that is not a DNS subdomain',
      after: { nominatedNodeName: 'Node_1' },
      errors: [
        "status.nominatedNodeName: Invalid value: \"Node_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    },
    {
      name: 'a changed QoS class',
      after: { qosClass: 'Guaranteed' },
      errors: ['status.qosClass: Invalid value: "Guaranteed": field is immutable'],
    },
    {
      name: 'restartPolicy Never: a terminated container reported running again',
      spec: { restartPolicy: 'Never' },
      before: { containerStatuses: [terminated('app', 0)] },
      after: { containerStatuses: [running('app')] },
      errors: [`status.containerStatuses[0].state: Forbidden: ${FORBIDDEN_TRANSITION}`],
    },
    {
      name: 'restartPolicy OnFailure: a failed container may run again',
      spec: { restartPolicy: 'OnFailure' },
      before: { containerStatuses: [terminated('app', 1)] },
      after: { containerStatuses: [running('app')] },
      errors: [],
    },
    {
      name: 'restartPolicy OnFailure: a container that succeeded may not',
      spec: { restartPolicy: 'OnFailure' },
      before: { containerStatuses: [terminated('app', 0)] },
      after: { containerStatuses: [running('app')] },
      errors: [`status.containerStatuses[0].state: Forbidden: ${FORBIDDEN_TRANSITION}`],
    },
    {
      name: 'restartPolicy Always: any container may restart',
      before: { containerStatuses: [terminated('app', 0)] },
      after: { containerStatuses: [running('app')] },
      errors: [],
    },
    {
      name: 'restartPolicy Never: a sidecar init container may restart, a plain one may not',
      spec: {
        restartPolicy: 'Never',
        initContainers: [
          { name: 'init', image: 'busybox' },
          { name: 'sidecar', image: 'busybox', restartPolicy: 'Always' },
        ],
      },
      before: { initContainerStatuses: [terminated('init', 0), terminated('sidecar', 0)] },
      after: { initContainerStatuses: [running('init'), running('sidecar')] },
      errors: [`status.initContainerStatuses[0].state: Forbidden: ${FORBIDDEN_TRANSITION}`],
    },
    {
      name: 'ephemeral containers never restart, whatever the pod’s policy',
      before: { ephemeralContainerStatuses: [terminated('debug', 0)] },
      after: { ephemeralContainerStatuses: [running('debug')] },
      errors: [`status.ephemeralContainerStatuses[0].state: Forbidden: ${FORBIDDEN_TRANSITION}`],
    },
    {
      name: 'resource claim statuses must name the pod’s claims, once each',
      spec: { resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }] },
      after: {
        resourceClaimStatuses: [
          { name: 'gpu', resourceClaimName: 'gpu-claim' },
          { name: 'gpu', resourceClaimName: 'Bad_Name' },
          { name: 'fpga' },
        ],
      },
      errors: [
        'status.resourceClaimStatuses[1].name: Duplicate value: "gpu"',
        "status.resourceClaimStatuses[1].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        'status.resourceClaimStatuses[2].name: Invalid value: "fpga": must match the name of an entry in `spec.resourceClaims`',
      ],
    },
  ];
  for (const testCase of cases) {
    it(testCase.name, () => {
      const old = stored(testCase.spec, testCase.before);
      expect(messages(statusUpdateErrors('/Pod', withStatus(old, testCase.after), old))).toEqual(
        testCase.errors,
      );
    });
  }

  it('checks the metadata update and pod-specific annotations, not the spec', () => {
    const old = stored();
    const next = withStatus(old, { phase: 'Running' });
    (next.metadata as Record<string, unknown>).uid = 'other';
    (next.metadata as Record<string, unknown>).annotations = { 'kubernetes.io/config.mirror': 'x' };
    expect(messages(statusUpdateErrors('/Pod', next, old))).toEqual([
      'metadata.uid: Invalid value: "other": field is immutable',
      'metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod annotation',
    ]);
  });
});
