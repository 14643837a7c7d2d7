// The Job controller's decision logic, table-driven: index sets, the pod failure policy, the
// success policy and the pod recreation backoff.
import { describe, expect, it } from 'vitest';
import type { PodFailurePolicy } from '../../../../src/api/types/batch-v1.generated.js';
import type { Pod } from '../../../../src/api/types/core-v1.generated.js';
import { formatIndexes, parseIndexes } from '../../../../src/controllers/job/indexes.js';
import { recreationDelayMs } from '../../../../src/controllers/job/job-controller.js';
import { templateForIndex } from '../../../../src/controllers/job/job-pods.js';
import { matchPodFailurePolicy } from '../../../../src/controllers/job/pod-failure-policy.js';
import { matchSuccessPolicy } from '../../../../src/controllers/job/success-policy.js';

describe('completion index sets', () => {
  it.each([
    ['', 5, []],
    ['0', 5, [0]],
    ['1,3-5,7', 10, [1, 3, 4, 5, 7]],
    ['2-8', 5, [2, 3, 4]],
  ])('parses %j below %d', (text, completions, expected) => {
    expect([...parseIndexes(text, completions)].sort((a, b) => a - b)).toEqual(expected);
  });
  it.each([
    [[], ''],
    [[3], '3'],
    [[5, 1, 2, 3, 7, 8], '1-3,5,7-8'],
    [[0, 2, 4], '0,2,4'],
  ])('formats %j as %j', (indexes, expected) => {
    expect(formatIndexes(indexes)).toBe(expected);
  });
});

function failedPod(exitCodes: Record<string, number>, conditions: Record<string, string> = {}): Pod {
  return {
    metadata: { namespace: 'ns', name: 'p' },
    spec: { containers: Object.keys(exitCodes).map((name) => ({ name })) },
    status: {
      phase: 'Failed',
      containerStatuses: Object.entries(exitCodes).map(([name, exitCode]) => ({
        name,
        image: 'x',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { terminated: { exitCode } },
      })),
      conditions: Object.entries(conditions).map(([type, status]) => ({ type, status })),
    },
  };
}

const POLICY: PodFailurePolicy = {
  rules: [
    { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [1, 2] } },
    { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
    { action: 'Ignore', onExitCodes: { operator: 'In', values: [42] } },
    { action: 'Count', onExitCodes: { operator: 'NotIn', values: [3] } },
  ],
};

describe('pod failure policy', () => {
  it.each([
    [
      'FailJob on exit code',
      failedPod({ main: 2 }),
      'FailJob',
      'Container main for pod ns/p failed with exit code 2 matching FailJob rule at index 0',
    ],
    ['FailJob only for its container', failedPod({ side: 2 }), 'Count', undefined],
    ['Ignore on a condition', failedPod({ main: 137 }, { DisruptionTarget: 'True' }), 'Ignore', undefined],
    [
      'condition status must match',
      failedPod({ main: 3 }, { DisruptionTarget: 'False' }),
      undefined,
      undefined,
    ],
    ['Ignore exit code 42', failedPod({ main: 42 }), 'Ignore', undefined],
    ['NotIn', failedPod({ main: 7 }), 'Count', undefined],
    ['no rule', failedPod({ main: 3 }), undefined, undefined],
    ['exit code 0 never matches', failedPod({ main: 0 }), undefined, undefined],
  ])('%s', (_name, pod, action, message) => {
    const match = matchPodFailurePolicy(POLICY, pod);
    expect(match?.action).toBe(action);
    expect(match?.message).toBe(message);
  });
  it('names the condition for FailJob on conditions', () => {
    const policy: PodFailurePolicy = {
      rules: [{ action: 'FailJob', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }],
    };
    expect(matchPodFailurePolicy(policy, failedPod({ main: 1 }, { DisruptionTarget: 'True' }))?.message).toBe(
      'Pod ns/p has condition DisruptionTarget matching FailJob rule at index 0',
    );
  });
});

describe('success policy', () => {
  it.each([
    [{ rules: [{ succeededIndexes: '0,2' }] }, [0], undefined],
    [{ rules: [{ succeededIndexes: '0,2' }] }, [0, 2], 'Matched rules at index 0'],
    [{ rules: [{ succeededCount: 2 }] }, [3, 4], 'Matched rules at index 0'],
    [{ rules: [{ succeededIndexes: '0-3', succeededCount: 2 }] }, [3, 4], undefined],
    [{ rules: [{ succeededIndexes: '0' }, { succeededCount: 1 }] }, [4], 'Matched rules at index 1'],
    [undefined, [0, 1, 2, 3, 4], undefined],
  ])('%j with %j', (policy, succeeded, expected) => {
    expect(matchSuccessPolicy(policy, 5, new Set(succeeded))).toBe(expected);
  });
});

describe('pod recreation backoff', () => {
  it.each([
    [0, 0],
    [1, 10_000],
    [2, 20_000],
    [3, 40_000],
    [7, 600_000],
    [20, 600_000],
  ])('after %d failures waits %d ms', (failures, delay) => {
    expect(recreationDelayMs(failures)).toBe(delay);
  });
});

describe('indexed pod template', () => {
  it('carries the index as annotation, label, env and hostname', () => {
    const template = templateForIndex(
      {
        metadata: { name: 'work' },
        spec: { template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c' }] } } },
      },
      3,
      0,
    );
    expect(template.metadata?.annotations?.['batch.kubernetes.io/job-completion-index']).toBe('3');
    expect(template.metadata?.labels).toEqual({ a: 'b', 'batch.kubernetes.io/job-completion-index': '3' });
    expect(template.spec?.hostname).toBe('work-3');
    expect(template.spec?.containers[0]?.env).toEqual([
      {
        name: 'JOB_COMPLETION_INDEX',
        valueFrom: {
          fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" },
        },
      },
    ]);
  });
});
