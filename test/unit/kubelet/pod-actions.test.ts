import { describe, expect, it } from 'vitest';
import { computePodActions, type ProbeState } from '../../../src/agent/kubelet/sync/pod-actions.js';
import { container, pod, running, runtimeOf, sandbox } from './fixtures.js';

const healthy: ProbeState = { livenessFailed: () => false, startupResult: () => 'success' };

describe('pod sync actions', () => {
  it('creates a sandbox and starts every container of a new pod', () => {
    const p = pod({ containers: [container('a'), container('b')] });
    expect(computePodActions(p, runtimeOf([], []), healthy)).toMatchObject({
      createSandbox: true,
      killPod: true,
      attempt: 0,
      sandboxId: '',
      containersToStart: [0, 1],
      initContainersToStart: [],
    });
  });

  it('replaces a dead sandbox with the next attempt and restarts init from the first container', () => {
    const init = container('init');
    const p = pod({ initContainers: [init], containers: [container('app')] });
    const runtime = runtimeOf([sandbox({ ready: false, attempt: 2 })], [running(init, 'exited')]);
    expect(computePodActions(p, runtime, healthy)).toMatchObject({
      createSandbox: true,
      attempt: 3,
      sandboxId: 'sb1',
      initContainersToStart: [0],
      containersToStart: [],
    });
  });

  it('does not recreate the sandbox of a finished restartPolicy Never pod', () => {
    const spec = container('app');
    const p = pod({ containers: [spec], restartPolicy: 'Never' });
    const actions = computePodActions(
      p,
      runtimeOf([sandbox({ ready: false })], [running(spec, 'exited')]),
      healthy,
    );
    expect(actions).toMatchObject({ createSandbox: false, killPod: true });
  });

  it('runs init containers one at a time, then the containers', () => {
    const [a, b] = [container('a'), container('b')];
    const p = pod({ initContainers: [a, b], containers: [container('app')] });
    const step = (containers: ReturnType<typeof running>[]) =>
      computePodActions(p, runtimeOf([sandbox()], containers), healthy);
    expect(step([]).initContainersToStart).toEqual([0]);
    expect(step([running(a)]).initContainersToStart).toEqual([]);
    expect(step([running(a, 'exited')]).initContainersToStart).toEqual([1]);
    const done = step([running(a, 'exited'), running(b, 'exited')]);
    expect(done.initContainersToStart).toEqual([]);
    expect(done.containersToStart).toEqual([0]);
  });

  it('restarts a failed init container unless the pod never restarts', () => {
    const init = container('init');
    const failed = running(init, 'exited', { exitCode: 1 });
    const onFailure = pod({ initContainers: [init], restartPolicy: 'OnFailure' });
    expect(
      computePodActions(onFailure, runtimeOf([sandbox()], [failed]), healthy).initContainersToStart,
    ).toEqual([0]);
    const never = pod({ initContainers: [init], restartPolicy: 'Never' });
    expect(computePodActions(never, runtimeOf([sandbox()], [failed]), healthy)).toMatchObject({
      killPod: true,
      initContainersToStart: [],
    });
  });

  it('moves past a sidecar once it has started and keeps it running', () => {
    const sidecar = container('proxy', {
      restartPolicy: 'Always',
      startupProbe: { exec: { command: ['true'] } },
    });
    const p = pod({ initContainers: [sidecar, container('migrate')], containers: [container('app')] });
    const proxy = running(sidecar);
    const waiting: ProbeState = { livenessFailed: () => false, startupResult: () => undefined };
    expect(computePodActions(p, runtimeOf([sandbox()], [proxy]), waiting).initContainersToStart).toEqual([]);
    expect(computePodActions(p, runtimeOf([sandbox()], [proxy]), healthy).initContainersToStart).toEqual([1]);
    // After initialization an exited sidecar is restarted.
    const appRunning = running(container('app'));
    const restarted = computePodActions(
      p,
      runtimeOf(
        [sandbox()],
        [running(sidecar, 'exited'), running(container('migrate'), 'exited'), appRunning],
      ),
      healthy,
    );
    expect(restarted.initContainersToStart).toEqual([0]);
    expect(restarted.containersToStart).toEqual([]);
  });

  it('restarts per restart policy', () => {
    const spec = container('app');
    const exited = (exitCode: number) => runtimeOf([sandbox()], [running(spec, 'exited', { exitCode })]);
    const start = (restartPolicy: string, exitCode: number) =>
      computePodActions(pod({ containers: [spec], restartPolicy }), exited(exitCode), healthy);
    expect(start('Always', 0).containersToStart).toEqual([0]);
    expect(start('OnFailure', 1).containersToStart).toEqual([0]);
    expect(start('OnFailure', 0)).toMatchObject({ containersToStart: [], killPod: true });
    expect(start('Never', 1)).toMatchObject({ containersToStart: [], killPod: true });
  });

  it('kills and restarts a container whose liveness probe failed, or whose definition changed', () => {
    const spec = container('app', { livenessProbe: { exec: { command: ['true'] } } });
    const app = running(spec);
    const failing: ProbeState = { livenessFailed: (id) => id === app.id, startupResult: () => 'success' };
    const actions = computePodActions(pod({ containers: [spec] }), runtimeOf([sandbox()], [app]), failing);
    expect(actions.containersToKill).toEqual([
      expect.objectContaining({
        id: app.id,
        message: 'Container app failed liveness probe, will be restarted',
        reason: 'LivenessProbe',
      }),
    ]);
    expect(actions.containersToStart).toEqual([0]);
    const newImage = { ...spec, image: 'tkube-test/busybox:2' };
    const changed = computePodActions(
      pod({ containers: [newImage], restartPolicy: 'Never' }),
      runtimeOf([sandbox()], [app]),
      healthy,
    );
    expect(changed.containersToKill[0]?.message).toBe('Container app definition changed, will be restarted');
    expect(changed.containersToStart).toEqual([0]);
  });

  it('leaves a healthy running pod alone', () => {
    const spec = container('app');
    const actions = computePodActions(
      pod({ containers: [spec] }),
      runtimeOf([sandbox()], [running(spec)]),
      healthy,
    );
    expect(actions).toMatchObject({
      killPod: false,
      createSandbox: false,
      containersToStart: [],
      containersToKill: [],
    });
  });
});

describe('ephemeral containers', () => {
  it('starts each one once, even before initialization, and never restarts it', () => {
    const debug = container('debug');
    const p = pod({
      initContainers: [container('init')],
      containers: [container('app')],
      ephemeralContainers: [debug, container('later')],
    });
    expect(computePodActions(p, runtimeOf([sandbox()], []), healthy).ephemeralContainersToStart).toEqual([
      0, 1,
    ]);
    const exited = runtimeOf([sandbox()], [running(debug, 'exited', { exitCode: 1 })]);
    expect(computePodActions(p, exited, healthy).ephemeralContainersToStart).toEqual([1]);
  });

  it('are not started with a new sandbox (only into a running one)', () => {
    const p = pod({ containers: [container('app')], ephemeralContainers: [container('debug')] });
    expect(computePodActions(p, runtimeOf([], []), healthy).ephemeralContainersToStart).toEqual([]);
  });
});
