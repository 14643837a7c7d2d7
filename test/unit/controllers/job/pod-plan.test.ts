// The Job controller's pod planning and success verdicts, table-driven: how many pods (and which
// indexes) it adds, which active pods it removes, and when a Job has met its success criteria.
import { describe, expect, it } from 'vitest';
import type { Job, JobSpec } from '../../../../src/api/types/batch-v1.generated.js';
import type { Pod } from '../../../../src/api/types/core-v1.generated.js';
import { successVerdict } from '../../../../src/controllers/job/job-conditions.js';
import { planPods } from '../../../../src/controllers/job/pod-plan.js';

function job(spec: Partial<JobSpec>): Job {
  return { metadata: { name: 'j' }, spec: { template: {}, ...spec } };
}

function pod(
  name: string,
  options: { index?: number; created?: string; deleting?: boolean; failures?: string; phase?: string } = {},
): Pod {
  return {
    metadata: {
      name,
      creationTimestamp: options.created ?? '2026-01-01T00:00:00Z',
      ...(options.deleting ? { deletionTimestamp: '2026-01-01T00:01:00Z' } : {}),
      annotations: {
        ...(options.index !== undefined
          ? { 'batch.kubernetes.io/job-completion-index': String(options.index) }
          : {}),
        ...(options.failures !== undefined
          ? { 'batch.kubernetes.io/job-index-failure-count': options.failures }
          : {}),
      },
    },
    spec: { containers: [] },
    status: { phase: options.phase ?? 'Running' },
  };
}

const names = (pods: Pod[]) => pods.map((p) => p.metadata?.name);

describe('planning pods of a NonIndexed Job', () => {
  it.each([
    ['fills parallelism', { parallelism: 3, completions: 10 }, 0, 0, 3, 0],
    ['tops up to parallelism', { parallelism: 3, completions: 10 }, 1, 2, 2, 0],
    ['stops at the completions left', { parallelism: 3, completions: 10 }, 0, 9, 1, 0],
    ['removes pods over parallelism', { parallelism: 1, completions: 10 }, 3, 0, 0, 2],
    ['work queue: starts parallelism', { parallelism: 2 }, 0, 0, 2, 0],
    ['work queue: none after a success, the running stay', { parallelism: 2 }, 1, 1, 0, 0],
    ['parallelism 0 removes all', { parallelism: 0, completions: 2 }, 2, 0, 0, 2],
  ])('%s', (_name, spec, activeCount, succeeded, wanted, excess) => {
    const active = Array.from({ length: activeCount }, (_, i) => pod(`p${i}`));
    const plan = planPods(job(spec), active, active, new Set(), new Set(), succeeded);
    expect(plan.wanted).toHaveLength(wanted);
    expect(plan.excess).toHaveLength(excess);
  });

  it('removes the newest pods first', () => {
    const active = [
      pod('old', { created: '2026-01-01T00:00:00Z' }),
      pod('new', { created: '2026-01-01T00:05:00Z' }),
    ];
    expect(
      names(
        planPods(job({ parallelism: 1, completions: 5 }), active, active, new Set(), new Set(), 0).excess,
      ),
    ).toEqual(['new']);
  });

  it('keeps a terminating pod’s slot with podReplacementPolicy Failed', () => {
    const terminating = pod('t', { deleting: true });
    const spec = { parallelism: 2, completions: 5, podReplacementPolicy: 'Failed' };
    expect(planPods(job(spec), [], [terminating], new Set(), new Set(), 0).wanted).toHaveLength(1);
    expect(
      planPods(
        job({ ...spec, podReplacementPolicy: 'TerminatingOrFailed' }),
        [],
        [terminating],
        new Set(),
        new Set(),
        0,
      ).wanted,
    ).toHaveLength(2);
  });
});

describe('planning pods of an Indexed Job', () => {
  const indexed = (spec: Partial<JobSpec>) => job({ completionMode: 'Indexed', ...spec });
  it.each([
    ['the lowest missing indexes first', { parallelism: 2, completions: 5 }, [], [0], [], [1, 2], []],
    [
      'skips running, completed and failed indexes',
      { parallelism: 5, completions: 5 },
      [1],
      [0],
      [3],
      [2, 4],
      [],
    ],
    [
      'removes duplicates of an index, keeping the oldest',
      { parallelism: 3, completions: 3 },
      [0, 0],
      [],
      [],
      [1, 2],
      ['p1'],
    ],
    ['removes pods of completed indexes', { parallelism: 2, completions: 3 }, [0], [0], [], [1, 2], ['p0']],
    [
      'removes the highest indexes over parallelism',
      { parallelism: 1, completions: 3 },
      [0, 2],
      [],
      [],
      [],
      ['p1'],
    ],
  ])('%s', (_name, spec, activeIndexes, completed, failed, wantedIndexes, excess) => {
    const active = activeIndexes.map((index, i) =>
      pod(`p${i}`, { index, created: `2026-01-01T00:0${i}:00Z` }),
    );
    const plan = planPods(
      indexed(spec),
      active,
      active,
      new Set(completed),
      new Set(failed),
      completed.length,
    );
    expect(plan.wanted.map((w) => w.index)).toEqual(wantedIndexes);
    expect(names(plan.excess)).toEqual(excess);
  });

  it('carries the failures of an index into its replacement', () => {
    const failed = [
      pod('f0', { index: 1, failures: '0', phase: 'Failed' }),
      pod('f1', { index: 1, failures: '1', phase: 'Failed' }),
    ];
    const plan = planPods(
      indexed({ parallelism: 2, completions: 2, backoffLimitPerIndex: 3 }),
      [],
      failed,
      new Set(),
      new Set(),
      0,
    );
    expect(plan.wanted).toEqual([
      { index: 0, failures: 0 },
      { index: 1, failures: 2 },
    ]);
  });
});

describe('success verdicts', () => {
  it.each([
    ['NonIndexed: completions reached', { completions: 3 }, [], [], 3, 0, 'CompletionsReached'],
    ['NonIndexed: not yet', { completions: 3 }, [], [], 2, 1, undefined],
    ['work queue: a success and none running', {}, [], [], 1, 0, 'CompletionsReached'],
    ['work queue: a success, others running', {}, [], [], 1, 1, undefined],
    [
      'Indexed: all indexes',
      { completionMode: 'Indexed', completions: 2 },
      [0, 1],
      [],
      2,
      0,
      'CompletionsReached',
    ],
    ['Indexed: some failed', { completionMode: 'Indexed', completions: 2 }, [0], [1], 1, 0, 'FailedIndexes'],
    [
      'Indexed: success policy',
      { completionMode: 'Indexed', completions: 4, successPolicy: { rules: [{ succeededCount: 1 }] } },
      [2],
      [],
      1,
      3,
      'SuccessPolicy',
    ],
  ])('%s', (_name, spec, completed, failed, succeeded, active, reason) => {
    expect(successVerdict(job(spec), new Set(completed), new Set(failed), succeeded, active)?.reason).toBe(
      reason,
    );
  });
});
