import { describe, expect, it } from 'vitest';
import type { PodRuntime } from '../../../src/agent/kubelet/runtime/pod-runtime.js';
import type { ProbeView } from '../../../src/agent/kubelet/status/container-statuses.js';
import {
  generatePodStatus,
  type PodStatusInput,
  podPhase,
} from '../../../src/agent/kubelet/status/pod-status.js';
import type { Pod, PodStatus } from '../../../src/api/types/core-v1.generated.js';
import { container, pod, running, runtimeOf, sandbox, UID } from './fixtures.js';

const ready: ProbeView = { isReady: () => true, isStarted: () => true };
const now = new Date('2026-01-02T03:04:05Z');

function statusOf(p: Pod, runtime: PodRuntime, extra: Partial<PodStatusInput> = {}): PodStatus {
  return generatePodStatus({
    pod: p,
    runtime,
    previous: undefined,
    startFailures: new Map(),
    probes: ready,
    hostIPs: ['172.18.0.3'],
    podIPs: runtime.sandboxes[0]?.ready ? [...runtime.sandboxes[0].ips] : [],
    sandboxReady: runtime.sandboxes[0]?.ready === true,
    podIsTerminal: false,
    now,
    ...extra,
  });
}

const condition = (status: PodStatus, type: string) => status.conditions?.find((c) => c.type === type);

describe('pod status', () => {
  it('reports a new pod as Pending with ContainerCreating and the kubelet conditions in order', () => {
    const status = statusOf(pod(), runtimeOf([], []));
    expect(status.phase).toBe('Pending');
    expect(status.containerStatuses).toEqual([
      {
        name: 'app',
        image: 'tkube-test/busybox:1',
        imageID: '',
        ready: false,
        restartCount: 0,
        started: false,
        state: { waiting: { reason: 'ContainerCreating' } },
      },
    ]);
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason ?? ''])).toEqual([
      ['PodReadyToStartContainers', 'False', ''],
      ['Initialized', 'True', ''],
      ['Ready', 'False', 'ContainersNotReady'],
      ['ContainersReady', 'False', 'ContainersNotReady'],
      ['PodScheduled', 'True', ''],
    ]);
    expect(condition(status, 'Ready')?.message).toBe('containers with unready status: [app]');
    expect(status).toMatchObject({
      hostIP: '172.18.0.3',
      hostIPs: [{ ip: '172.18.0.3' }],
      qosClass: 'BestEffort',
    });
    expect(status.startTime).toBe('2026-01-02T03:04:05Z');
    expect(status.podIP).toBeUndefined();
  });

  it('reports a running, ready container with its id, image, and the pod IP', () => {
    const spec = container('app');
    const app = running(spec);
    const status = statusOf(pod({ containers: [spec] }), runtimeOf([sandbox()], [app]));
    expect(status.phase).toBe('Running');
    expect(status.podIP).toBe('10.244.1.5');
    expect(status.containerStatuses?.[0]).toMatchObject({
      containerID: `containerd://${app.id}`,
      image: 'docker.io/tkube-test/busybox:1',
      imageID: 'sha256:abc',
      ready: true,
      started: true,
      state: { running: { startedAt: '1970-01-01T00:00:02Z' } },
    });
    expect(condition(status, 'Ready')?.status).toBe('True');
    expect(condition(status, 'PodReadyToStartContainers')?.status).toBe('True');
  });

  it('keeps Ready false until the readiness probe passes and lastTransitionTime while unchanged', () => {
    const spec = container('app', { readinessProbe: { exec: { command: ['true'] } } });
    const runtime = runtimeOf([sandbox()], [running(spec)]);
    const p = pod({ containers: [spec] });
    const unready = statusOf(p, runtime, { probes: { isReady: () => false, isStarted: () => true } });
    expect(unready.containerStatuses?.[0]?.ready).toBe(false);
    expect(condition(unready, 'ContainersReady')?.status).toBe('False');
    const later = statusOf(p, runtime, {
      previous: unready,
      now: new Date('2026-01-02T03:05:00Z'),
    });
    expect(condition(later, 'Ready')).toMatchObject({
      status: 'True',
      lastTransitionTime: '2026-01-02T03:05:00Z',
    });
    expect(condition(later, 'PodScheduled')?.lastTransitionTime).toBe('2026-01-02T03:04:05Z');
    expect(later.startTime).toBe('2026-01-02T03:04:05Z');
  });

  it('shows a crash-looping container as waiting with its last termination and restart count', () => {
    const spec = container('app');
    const first = running(spec, 'exited', { exitCode: 1, reason: 'Error', message: 'boom', restartCount: 0 });
    const second = running(spec, 'exited', { exitCode: 1, reason: 'Error', restartCount: 1 });
    const status = statusOf(pod({ containers: [spec] }), runtimeOf([sandbox()], [first, second]), {
      startFailures: new Map([
        [
          'app',
          {
            reason: 'CrashLoopBackOff',
            message: 'back-off 10s restarting failed container=app pod=web_default(x)',
          },
        ],
      ]),
    });
    expect(status.phase).toBe('Running');
    const app = status.containerStatuses?.[0];
    expect(app?.restartCount).toBe(1);
    expect(app?.state).toEqual({
      waiting: {
        reason: 'CrashLoopBackOff',
        message: 'back-off 10s restarting failed container=app pod=web_default(x)',
      },
    });
    expect(app?.lastState?.terminated).toMatchObject({
      exitCode: 1,
      reason: 'Error',
      containerID: `containerd://${second.id}`,
    });
  });

  it('waits with the image error and message while the image cannot be pulled', () => {
    const status = statusOf(pod(), runtimeOf([sandbox()], []), {
      startFailures: new Map([
        ['app', { reason: 'ImagePullBackOff', message: 'Back-off pulling image "x"' }],
      ]),
    });
    expect(status.phase).toBe('Pending');
    expect(status.containerStatuses?.[0]?.state).toEqual({
      waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "x"' },
    });
  });

  it('reports init containers in spec order, PodInitializing, and Initialized only when they completed', () => {
    const first = container('first');
    const second = container('second');
    const spec = { initContainers: [first, second], containers: [container('app')] };
    const runningInit = statusOf(
      pod(spec),
      runtimeOf([sandbox()], [running(first, 'exited'), running(second)]),
    );
    expect(runningInit.phase).toBe('Pending');
    expect(runningInit.initContainerStatuses?.map((s) => [s.name, s.ready])).toEqual([
      ['first', true],
      ['second', false],
    ]);
    expect(runningInit.containerStatuses?.[0]?.state).toEqual({ waiting: { reason: 'PodInitializing' } });
    expect(condition(runningInit, 'Initialized')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotInitialized',
      message: 'containers with incomplete status: [second]',
    });
    const done = statusOf(
      pod(spec),
      runtimeOf(
        [sandbox()],
        [running(first, 'exited'), running(second, 'exited'), running(container('app'))],
      ),
    );
    expect(done.phase).toBe('Running');
    expect(condition(done, 'Initialized')?.status).toBe('True');
  });

  it('counts a started sidecar as initialized and ready', () => {
    const sidecar = container('proxy', { restartPolicy: 'Always' });
    const p = pod({ initContainers: [sidecar], containers: [container('app')] });
    const status = statusOf(p, runtimeOf([sandbox()], [running(sidecar)]));
    expect(condition(status, 'Initialized')?.status).toBe('True');
    expect(status.initContainerStatuses?.[0]).toMatchObject({ started: true, ready: true });
    expect(status.containerStatuses?.[0]?.state).toEqual({ waiting: { reason: 'PodInitializing' } });
  });

  it('completes a restartPolicy Never pod as Succeeded or Failed, with PodCompleted conditions', () => {
    const spec = container('app');
    const never = pod({ containers: [spec], restartPolicy: 'Never' });
    const ok = statusOf(never, runtimeOf([sandbox()], [running(spec, 'exited')]));
    expect(ok.phase).toBe('Succeeded');
    expect(condition(ok, 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
    expect(condition(ok, 'Initialized')).toMatchObject({ status: 'True', reason: 'PodCompleted' });
    const failed = statusOf(
      never,
      runtimeOf([sandbox()], [running(spec, 'exited', { exitCode: 2, reason: 'Error' })]),
    );
    expect(failed.phase).toBe('Failed');
    expect(condition(failed, 'ContainersReady')).toMatchObject({ status: 'False', reason: 'PodFailed' });
    expect(failed.containerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 2, reason: 'Error' });
  });

  it('never leaves a terminal phase, and fails a pod past its deadline with the reason', () => {
    const spec = container('app');
    const p = pod({ containers: [spec] }, { status: { phase: 'Failed', qosClass: 'BestEffort' } });
    expect(statusOf(p, runtimeOf([sandbox()], [running(spec)])).phase).toBe('Failed');
    const deadline = statusOf(pod({ containers: [spec] }), runtimeOf([], []), {
      podIsTerminal: true,
      failure: {
        reason: 'DeadlineExceeded',
        message: 'Pod was active on the node longer than the specified deadline',
      },
    });
    expect(deadline).toMatchObject({
      phase: 'Failed',
      reason: 'DeadlineExceeded',
      message: 'Pod was active on the node longer than the specified deadline',
    });
  });

  it('keeps conditions others own ahead of the kubelet ones', () => {
    const p = pod(
      { readinessGates: [{ conditionType: 'example.com/gate' }] },
      {
        status: {
          phase: 'Pending',
          conditions: [{ type: 'example.com/gate', status: 'False', lastTransitionTime: 'x' }],
        },
      },
    );
    const spec = p.spec!.containers[0]!;
    const status = statusOf(p, runtimeOf([sandbox()], [running(spec)]));
    expect(status.conditions?.[0]?.type).toBe('example.com/gate');
    expect(condition(status, 'ContainersReady')?.status).toBe('True');
    expect(condition(status, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ReadinessGatesNotReady',
      message: 'the status of pod readiness gate "example.com/gate" is not "True", but False',
    });
  });

  it('keeps a reported termination message the runtime can no longer read', () => {
    const spec = container('app');
    const done = running(spec, 'exited', { exitCode: 1, reason: 'Error' });
    const p = pod({ containers: [spec], restartPolicy: 'Never' });
    const previous = statusOf(p, runtimeOf([sandbox()], [{ ...done, message: 'last words' }]));
    expect(previous.containerStatuses?.[0]?.state?.terminated?.message).toBe('last words');
    const again = statusOf(p, runtimeOf([sandbox()], [done]), { previous });
    expect(again.containerStatuses?.[0]?.state?.terminated?.message).toBe('last words');
  });

  it('gives host-network pods the node address', () => {
    const p = pod({ hostNetwork: true });
    const status = statusOf(p, runtimeOf([], []));
    expect(status.podIPs).toEqual([{ ip: '172.18.0.3' }]);
    expect(UID).toBeTruthy();
  });
});

describe('pod phase', () => {
  const term = (exitCode: number) => ({
    name: 'app',
    image: '',
    imageID: '',
    ready: false,
    restartCount: 0,
    state: { terminated: { exitCode } },
  });
  it('follows the restart policy once every container stopped', () => {
    const spec = (restartPolicy: string) => ({ containers: [container('app')], restartPolicy });
    expect(podPhase(spec('Always'), [term(0)], false)).toBe('Running');
    expect(podPhase(spec('OnFailure'), [term(0)], false)).toBe('Succeeded');
    expect(podPhase(spec('OnFailure'), [term(1)], false)).toBe('Running');
    expect(podPhase(spec('Never'), [term(1)], false)).toBe('Failed');
    expect(podPhase(spec('Always'), [term(0)], true)).toBe('Succeeded');
    expect(podPhase(spec('Always'), [term(137)], true)).toBe('Failed');
  });
});
