import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { ago, cellsOf } from './helpers.js';

function template(containers: [string, string][]): Record<string, unknown> {
  return {
    metadata: { labels: { app: 'web' } },
    spec: { containers: containers.map(([name, image]) => ({ name, image })) },
  };
}

describe('deployment rows', () => {
  const deployment: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'nginx', namespace: 'default', creationTimestamp: ago({ d: 2, h: 3 }) },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'nginx' } },
      template: template([['nginx', 'nginx:1.27']]),
    },
    status: { replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2 },
  };

  it('prints READY x/y, UP-TO-DATE, AVAILABLE and the wide columns', () => {
    expect(cellsOf('apps', 'Deployment', deployment)).toEqual([
      'nginx',
      '2/3',
      3,
      2,
      '2d3h',
      'nginx',
      'nginx:1.27',
      'app=nginx',
    ]);
  });

  it('prints a fresh deployment without status and a selector with expressions', () => {
    const fresh: KubeObject = {
      ...deployment,
      metadata: { name: 'web', creationTimestamp: ago({ s: 4 }) },
      spec: {
        replicas: 2,
        selector: {
          matchLabels: { tier: 'frontend', app: 'web' },
          matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }],
        },
        template: template([
          ['web', 'web:2'],
          ['proxy', 'envoy:1.30'],
        ]),
      },
      status: {},
    };
    expect(cellsOf('apps', 'Deployment', fresh)).toEqual([
      'web',
      '0/2',
      0,
      0,
      '4s',
      'web,proxy',
      'web:2,envoy:1.30',
      'app=web,env in (dev,prod),tier=frontend',
    ]);
  });
});

describe('replica set rows', () => {
  it('prints desired, current and ready counts and the selector', () => {
    const rs: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'nginx-5d8f9c7b6', creationTimestamp: ago({ h: 26 }) },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'nginx', 'pod-template-hash': '5d8f9c7b6' } },
        template: template([['nginx', 'nginx:1.27']]),
      },
      status: { replicas: 3, readyReplicas: 1 },
    };
    expect(cellsOf('apps', 'ReplicaSet', rs)).toEqual([
      'nginx-5d8f9c7b6',
      3,
      3,
      1,
      '26h',
      'nginx',
      'nginx:1.27',
      'app=nginx,pod-template-hash=5d8f9c7b6',
    ]);
  });
});

describe('stateful set rows', () => {
  it('prints READY as ready/desired', () => {
    const sts: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', creationTimestamp: ago({ m: 42 }) },
      spec: {
        replicas: 3,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: template([['pg', 'postgres:17']]),
      },
      status: { replicas: 2, readyReplicas: 1 },
    };
    expect(cellsOf('apps', 'StatefulSet', sts)).toEqual(['db', '1/3', '42m', 'pg', 'postgres:17']);
  });
});

describe('daemon set rows', () => {
  it('prints the scheduling counts and the node selector', () => {
    const ds: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'kube-proxy', namespace: 'kube-system', creationTimestamp: ago({ d: 8 }) },
      spec: {
        selector: { matchLabels: { 'k8s-app': 'kube-proxy' } },
        template: {
          spec: {
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            containers: [{ name: 'kube-proxy', image: 'registry.k8s.io/kube-proxy:v1.33.0' }],
          },
        },
      },
      status: {
        desiredNumberScheduled: 3,
        currentNumberScheduled: 3,
        numberReady: 2,
        updatedNumberScheduled: 3,
        numberAvailable: 2,
      },
    };
    expect(cellsOf('apps', 'DaemonSet', ds)).toEqual([
      'kube-proxy',
      3,
      3,
      2,
      3,
      2,
      'kubernetes.io/os=linux',
      '8d',
      'kube-proxy',
      'registry.k8s.io/kube-proxy:v1.33.0',
      'k8s-app=kube-proxy',
    ]);
  });

  it('prints <none> without a node selector', () => {
    const ds: KubeObject = {
      metadata: { name: 'agent', creationTimestamp: ago({ m: 1 }) },
      spec: { selector: { matchLabels: { app: 'agent' } }, template: { spec: { containers: [] } } },
    };
    expect(cellsOf('apps', 'DaemonSet', ds).slice(6)).toEqual(['<none>', '60s', '', '', 'app=agent']);
  });
});

describe('job rows', () => {
  function job(spec: Record<string, unknown>, status: Record<string, unknown>, deleting = false): KubeObject {
    return {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name: 'pi',
        creationTimestamp: ago({ m: 12 }),
        ...(deleting ? { deletionTimestamp: ago({ s: 1 }) } : {}),
      },
      spec: {
        selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': '7f1c' } },
        template: { spec: { containers: [{ name: 'pi', image: 'perl:5.34' }], restartPolicy: 'Never' } },
        ...spec,
      },
      status,
    };
  }

  it('prints a complete job with its duration', () => {
    const complete = job(
      { completions: 1, parallelism: 1 },
      {
        succeeded: 1,
        startTime: ago({ m: 10 }),
        completionTime: ago({ m: 9, s: 15 }),
        conditions: [
          { type: 'SuccessCriteriaMet', status: 'True' },
          { type: 'Complete', status: 'True' },
        ],
      },
    );
    expect(cellsOf('batch', 'Job', complete)).toEqual([
      'pi',
      'Complete',
      '1/1',
      '45s',
      '12m',
      'pi',
      'perl:5.34',
      'batch.kubernetes.io/controller-uid=7f1c',
    ]);
  });

  it('prints a running job: duration so far, completions of a work queue', () => {
    const queue = job({ parallelism: 3 }, { active: 3, succeeded: 0, startTime: ago({ h: 3, m: 5 }) });
    expect(cellsOf('batch', 'Job', queue).slice(1, 4)).toEqual(['Running', '0/1 of 3', '3h5m']);
  });

  it('prints Failed, Suspended, FailureTarget and Terminating', () => {
    const status = (type: string) => ({ conditions: [{ type, status: 'True' }] });
    expect(
      cellsOf('batch', 'Job', job({ completions: 5 }, { ...status('Failed'), failed: 6 })).slice(1, 4),
    ).toEqual(['Failed', '0/5', '']);
    expect(cellsOf('batch', 'Job', job({ suspend: true }, status('Suspended')))[1]).toBe('Suspended');
    expect(cellsOf('batch', 'Job', job({}, status('FailureTarget')))[1]).toBe('FailureTarget');
    expect(cellsOf('batch', 'Job', job({}, status('Suspended'), true))[1]).toBe('Terminating');
    expect(cellsOf('batch', 'Job', job({}, { conditions: [{ type: 'Complete', status: 'False' }] }))[1]).toBe(
      'Running',
    );
  });
});

describe('cron job rows', () => {
  it('prints schedule, time zone, suspend, active jobs and last schedule', () => {
    const cronJob: KubeObject = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'backup', creationTimestamp: ago({ d: 8 }) },
      spec: {
        schedule: '*/5 * * * *',
        suspend: false,
        jobTemplate: {
          spec: { template: { spec: { containers: [{ name: 'backup', image: 'restic:0.17' }] } } },
        },
      },
      status: { active: [{ kind: 'Job', name: 'backup-29100' }], lastScheduleTime: ago({ m: 3 }) },
    };
    expect(cellsOf('batch', 'CronJob', cronJob)).toEqual([
      'backup',
      '*/5 * * * *',
      '<none>',
      'False',
      1,
      '3m',
      '8d',
      'backup',
      'restic:0.17',
      '<none>',
    ]);
  });

  it('prints a time zone, <unset> suspend and <none> before the first run', () => {
    const cronJob: KubeObject = {
      metadata: { name: 'report', creationTimestamp: ago({ s: 30 }) },
      spec: { schedule: '0 9 * * 1', timeZone: 'Europe/Berlin', jobTemplate: { spec: {} } },
    };
    expect(cellsOf('batch', 'CronJob', cronJob).slice(1, 6)).toEqual([
      '0 9 * * 1',
      'Europe/Berlin',
      '<unset>',
      0,
      '<none>',
    ]);
  });
});
