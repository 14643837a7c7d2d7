import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { printTable } from '../../../src/apiserver/printers/index.js';
import { ago, cellsOf, NOW } from './helpers.js';

interface PodParts {
  name?: string;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

function pod({ name = 'web-0', spec = {}, status = {}, metadata = {} }: PodParts): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', creationTimestamp: ago({ m: 5 }), ...metadata },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], ...spec },
    status,
  };
}

const running = { running: { startedAt: ago({ m: 4 }) } };

function podCells(parts: PodParts): unknown[] {
  return cellsOf('', 'Pod', pod(parts));
}

describe('pod rows', () => {
  it('prints a running pod with all containers ready', () => {
    const cells = podCells({
      spec: {
        nodeName: 'tkube-worker',
        containers: [
          { name: 'app', image: 'nginx:1.27' },
          { name: 'log', image: 'busybox' },
        ],
      },
      status: {
        phase: 'Running',
        podIP: '10.244.1.5',
        podIPs: [{ ip: '10.244.1.5' }, { ip: 'fd00::5' }],
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [
          { name: 'app', ready: true, restartCount: 0, state: running },
          { name: 'log', ready: true, restartCount: 0, state: running },
        ],
      },
    });
    expect(cells).toEqual([
      'web-0',
      '2/2',
      'Running',
      '0',
      '5m',
      '10.244.1.5',
      'tkube-worker',
      '<none>',
      '<none>',
    ]);
  });

  it('prints a pod waiting for the scheduler', () => {
    const cells = podCells({
      status: {
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
      },
    });
    expect(cells).toEqual(['web-0', '0/1', 'Pending', '0', '5m', '<none>', '<none>', '<none>', '<none>']);
  });

  it('prints SchedulingGated for a pod held by scheduling gates', () => {
    const cells = podCells({
      status: {
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }],
      },
    });
    expect(cells[2]).toBe('SchedulingGated');
  });

  it('prints the waiting reason of a container being created', () => {
    const cells = podCells({
      spec: { nodeName: 'tkube-worker' },
      status: {
        phase: 'Pending',
        containerStatuses: [
          { name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } },
        ],
      },
    });
    expect(cells.slice(0, 4)).toEqual(['web-0', '0/1', 'ContainerCreating', '0']);
  });

  it('prints CrashLoopBackOff with the restart count and when the last restart was', () => {
    const cells = podCells({
      status: {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'app',
            ready: false,
            restartCount: 5,
            state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 2m40s' } },
            lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago({ m: 2 }) } },
          },
        ],
      },
    });
    expect(cells.slice(0, 4)).toEqual(['web-0', '0/1', 'CrashLoopBackOff', '5 (2m ago)']);
  });

  it('prints restarts without a time when the last termination has none', () => {
    const cells = podCells({
      status: {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'app',
            ready: true,
            restartCount: 4,
            state: running,
            lastState: { terminated: { exitCode: 1 } },
          },
        ],
      },
    });
    expect(cells.slice(1, 4)).toEqual(['1/1', 'Running', '4']);
  });

  it('prints Init:x/y while init containers run', () => {
    const cells = podCells({
      spec: {
        initContainers: [
          { name: 'migrate', image: 'migrate' },
          { name: 'warm', image: 'warm' },
        ],
      },
      status: {
        phase: 'Pending',
        conditions: [{ type: 'Initialized', status: 'False' }],
        initContainerStatuses: [
          {
            name: 'migrate',
            ready: true,
            restartCount: 0,
            state: { terminated: { exitCode: 0, reason: 'Completed' } },
          },
          { name: 'warm', ready: false, restartCount: 0, state: running },
        ],
        containerStatuses: [
          { name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } },
        ],
      },
    });
    expect(cells.slice(0, 4)).toEqual(['web-0', '0/1', 'Init:1/2', '0']);
  });

  it('prints Init:0/1 for an init container still waiting to initialize the pod', () => {
    const cells = podCells({
      spec: { initContainers: [{ name: 'setup', image: 'setup' }] },
      status: {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'setup', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } },
        ],
      },
    });
    expect(cells[2]).toBe('Init:0/1');
  });

  it('prints the failure of an init container', () => {
    const initPod = (state: Record<string, unknown>, restartCount = 0, lastState = {}) =>
      podCells({
        spec: { initContainers: [{ name: 'setup', image: 'setup' }] },
        status: {
          phase: 'Pending',
          initContainerStatuses: [{ name: 'setup', ready: false, restartCount, state, lastState }],
        },
      });
    expect(initPod({ terminated: { exitCode: 1, reason: 'Error' } })[2]).toBe('Init:Error');
    expect(initPod({ terminated: { exitCode: 2 } })[2]).toBe('Init:ExitCode:2');
    expect(initPod({ terminated: { exitCode: 137, signal: 9 } })[2]).toBe('Init:Signal:9');
    const crashing = initPod({ waiting: { reason: 'CrashLoopBackOff' } }, 3, {
      terminated: { exitCode: 1, finishedAt: ago({ s: 30 }) },
    });
    expect(crashing.slice(1, 4)).toEqual(['0/1', 'Init:CrashLoopBackOff', '3 (30s ago)']);
  });

  it('counts a started sidecar towards READY and its restarts towards RESTARTS', () => {
    const cells = podCells({
      spec: {
        initContainers: [{ name: 'proxy', image: 'envoy', restartPolicy: 'Always' }],
        containers: [{ name: 'app', image: 'app' }],
      },
      status: {
        phase: 'Running',
        conditions: [
          { type: 'Initialized', status: 'True' },
          { type: 'Ready', status: 'True' },
        ],
        initContainerStatuses: [
          {
            name: 'proxy',
            started: true,
            ready: true,
            restartCount: 1,
            state: running,
            lastState: { terminated: { exitCode: 1, finishedAt: ago({ m: 10 }) } },
          },
        ],
        containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: running }],
      },
    });
    expect(cells.slice(1, 4)).toEqual(['2/2', 'Running', '1 (10m ago)']);
  });

  it('prints Completed and Error for finished pods', () => {
    const completed = podCells({
      status: {
        phase: 'Succeeded',
        containerStatuses: [
          {
            name: 'app',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, reason: 'Completed' } },
          },
        ],
      },
    });
    expect(completed.slice(1, 4)).toEqual(['0/1', 'Completed', '0']);
    const failed = podCells({
      status: {
        phase: 'Failed',
        containerStatuses: [
          {
            name: 'app',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 1, reason: 'Error' } },
          },
        ],
      },
    });
    expect(failed[2]).toBe('Error');
  });

  it('prints ExitCode and Signal for containers terminated without a reason', () => {
    const terminated = (state: Record<string, unknown>) =>
      podCells({
        status: {
          phase: 'Running',
          containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state }],
        },
      })[2];
    expect(terminated({ terminated: { exitCode: 3 } })).toBe('ExitCode:3');
    expect(terminated({ terminated: { exitCode: 143, signal: 15 } })).toBe('Signal:15');
  });

  it('prints the status reason of an evicted pod', () => {
    const cells = podCells({ status: { phase: 'Failed', reason: 'Evicted', message: 'low on memory' } });
    expect(cells[2]).toBe('Evicted');
  });

  it('prints NotReady or Running when a container completed while another still runs', () => {
    const mixed = (ready: string) =>
      podCells({
        spec: {
          containers: [
            { name: 'job', image: 'job' },
            { name: 'server', image: 'server' },
          ],
        },
        status: {
          phase: 'Running',
          conditions: [{ type: 'Ready', status: ready }],
          containerStatuses: [
            {
              name: 'job',
              ready: false,
              restartCount: 0,
              state: { terminated: { exitCode: 0, reason: 'Completed' } },
            },
            { name: 'server', ready: true, restartCount: 0, state: running },
          ],
        },
      });
    expect(mixed('False').slice(1, 3)).toEqual(['1/2', 'NotReady']);
    expect(mixed('True').slice(1, 3)).toEqual(['1/2', 'Running']);
  });

  it('prints Terminating for a pod being deleted, Unknown when its node is lost', () => {
    const deleting = podCells({
      metadata: { deletionTimestamp: ago({ s: 10 }), deletionGracePeriodSeconds: 30 },
      status: {
        phase: 'Running',
        containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: running }],
      },
    });
    expect(deleting.slice(1, 3)).toEqual(['1/1', 'Terminating']);
    const lost = podCells({
      metadata: { deletionTimestamp: ago({ s: 10 }) },
      status: { phase: 'Running', reason: 'NodeLost' },
    });
    expect(lost[2]).toBe('Unknown');
    const finished = podCells({
      metadata: { deletionTimestamp: ago({ s: 10 }) },
      status: {
        phase: 'Succeeded',
        containerStatuses: [
          {
            name: 'app',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, reason: 'Completed' } },
          },
        ],
      },
    });
    expect(finished[2]).toBe('Completed');
  });

  it('fills the wide columns: IP, node, nominated node and readiness gates', () => {
    const cells = podCells({
      spec: {
        nodeName: 'tkube-worker2',
        readinessGates: [{ conditionType: 'example.com/lb-ready' }, { conditionType: 'example.com/warm' }],
      },
      status: {
        phase: 'Running',
        podIP: '10.244.2.7',
        nominatedNodeName: 'tkube-worker3',
        conditions: [
          { type: 'example.com/lb-ready', status: 'True' },
          { type: 'example.com/warm', status: 'False' },
        ],
      },
    });
    expect(cells.slice(5)).toEqual(['10.244.2.7', 'tkube-worker2', 'tkube-worker3', '1/2']);
  });

  it('prints <unknown> as the age of a pod without a creation timestamp', () => {
    const object = pod({});
    delete object.metadata?.creationTimestamp;
    expect(cellsOf('', 'Pod', object)[4]).toBe('<unknown>');
  });
});

describe('pod row conditions', () => {
  it('marks succeeded and failed pods Completed, and no others', () => {
    const table = printTable(
      '',
      'Pod',
      [
        pod({ status: { phase: 'Succeeded' } }),
        pod({ status: { phase: 'Failed' } }),
        pod({ status: { phase: 'Running' } }),
      ],
      { now: NOW, includeObject: 'None' },
    );
    expect(table.rows?.map((row) => row.conditions)).toEqual([
      [
        {
          type: 'Completed',
          status: 'True',
          reason: 'Succeeded',
          message: 'The pod has completed successfully.',
        },
      ],
      [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }],
      undefined,
    ]);
    expect(Object.hasOwn(table.rows?.[2] ?? {}, 'conditions')).toBe(false);
  });
});
