import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { createErrors, DNS_SUBDOMAIN_RULE, defaulted, messages, updateErrors } from './support.js';

const container = { name: 'pi', image: 'perl:5.34' };
const defaultedTemplateSpec = {
  containers: [
    {
      ...container,
      imagePullPolicy: 'IfNotPresent',
      resources: {},
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    },
  ],
  restartPolicy: 'Never',
  dnsPolicy: 'ClusterFirst',
  schedulerName: 'default-scheduler',
  securityContext: {},
  terminationGracePeriodSeconds: 30,
};

function job(spec: Record<string, unknown>, name = 'pi'): KubeObject {
  return { apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: 'default' }, spec };
}

/** What the Job strategy's PrepareForCreate does (generateSelector and the uid) before validation. */
function withGeneratedSelector(object: KubeObject, uid = 'f2a6c4e0-1111-4222-8333-944455556666'): KubeObject {
  const copy = structuredClone(object) as KubeObject & {
    metadata: Record<string, unknown>;
    spec: { template: { metadata?: { labels?: Record<string, string> } }; selector?: unknown };
  };
  const name = String(copy.metadata.name);
  copy.metadata.uid = uid;
  copy.spec.template.metadata = {
    ...copy.spec.template.metadata,
    labels: {
      ...copy.spec.template.metadata?.labels,
      'batch.kubernetes.io/controller-uid': uid,
      'batch.kubernetes.io/job-name': name,
      'controller-uid': uid,
      'job-name': name,
    },
  };
  copy.spec.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
  return copy;
}

const template = { spec: { containers: [container], restartPolicy: 'Never' } };

describe('Job', () => {
  it('gets the batch/v1 defaults', () => {
    expect(defaulted('batch/Job', job({ template }))).toEqual(
      job({
        completions: 1,
        parallelism: 1,
        backoffLimit: 6,
        completionMode: 'NonIndexed',
        suspend: false,
        podReplacementPolicy: 'TerminatingOrFailed',
        manualSelector: false,
        template: { metadata: { creationTimestamp: null }, spec: defaultedTemplateSpec },
      }),
    );
  });

  it('copies template labels to empty job labels and defaults per-index backoff and failure policies', () => {
    const labelled = { metadata: { labels: { app: 'pi' } }, spec: template.spec };
    const result = defaulted(
      'batch/Job',
      job({
        parallelism: 2,
        completionMode: 'Indexed',
        completions: 4,
        backoffLimitPerIndex: 1,
        podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] },
        template: labelled,
      }),
    );
    expect(result.metadata).toEqual({ name: 'pi', namespace: 'default', labels: { app: 'pi' } });
    expect(result.spec).toMatchObject({
      parallelism: 2,
      completions: 4,
      backoffLimit: 2147483647,
      podReplacementPolicy: 'Failed',
      podFailurePolicy: {
        rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }],
      },
    });
  });

  it('accepts a job whose selector the strategy generated', () => {
    expect(createErrors('batch/Job', withGeneratedSelector(job({ template })))).toEqual([]);
  });

  it('needs a selector matching the template when the strategy did not generate one', () => {
    expect(messages(createErrors('batch/Job', job({ template })))).toEqual([
      'spec.selector: Required value',
      'spec.template.metadata.labels: Invalid value: map[string]string(nil): `selector` does not match template `labels`',
    ]);
  });

  it.each([
    [
      'the default restart policy',
      { template: { spec: { containers: [container] } } },
      ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'],
    ],
    [
      'negative counts',
      { template, parallelism: -1, backoffLimit: -2 },
      [
        'spec.parallelism: Invalid value: -1: must be greater than or equal to 0',
        'spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0',
      ],
    ],
    [
      'indexed mode without completions',
      { template, completionMode: 'Indexed', parallelism: 1 },
      ['spec.completions: Required value: when completion mode is Indexed'],
    ],
    [
      'an unknown completion mode',
      { template, completionMode: 'Sometimes' },
      ['spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"'],
    ],
    [
      'backoffLimitPerIndex without indexed mode',
      { template, backoffLimitPerIndex: 1 },
      ['spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode'],
    ],
    [
      'a pod failure policy with restartPolicy OnFailure',
      {
        template: { spec: { containers: [container], restartPolicy: 'OnFailure' } },
        podFailurePolicy: {
          rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [0, 3, 2] } }],
        },
      },
      [
        'spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator',
        'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{0, 3, 2}: must be ordered',
        'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified',
      ],
    ],
    [
      'a failure policy rule with neither exit codes nor conditions',
      { template, podFailurePolicy: { rules: [{ action: 'Count' }] } },
      [
        'spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required',
      ],
    ],
    [
      'a success policy without indexed mode',
      { template, successPolicy: { rules: [{ succeededCount: 1 }] } },
      ['spec.successPolicy: Invalid value: batch.SuccessPolicy{...}: requires indexed completion mode'],
    ],
    [
      'a malformed succeededIndexes',
      {
        template,
        completionMode: 'Indexed',
        completions: 3,
        successPolicy: { rules: [{ succeededIndexes: '2-1' }] },
      },
      [
        'spec.successPolicy.rules[0].succeededIndexes: Invalid value: "2-1": error parsing succeededIndexes: non-increasing order, previous: 2, current: 1',
      ],
    ],
    [
      'an unsupported pod replacement policy',
      { template, podReplacementPolicy: 'Always' },
      [
        'spec.podReplacementPolicy: Unsupported value: "Always": supported values: "Failed", "TerminatingOrFailed"',
      ],
    ],
  ])('rejects %s', (_name, spec, expected) => {
    expect(messages(createErrors('batch/Job', withGeneratedSelector(job(spec))))).toEqual(expected);
  });

  it('rejects an indexed job whose pod hostnames would not be DNS labels', () => {
    const name = 'a'.repeat(62);
    const errors = createErrors(
      'batch/Job',
      withGeneratedSelector(job({ template, completionMode: 'Indexed', completions: 10 }, name)),
    );
    expect(messages(errors).filter((message) => message.startsWith('metadata.name'))).toEqual([
      `metadata.name: Invalid value: "${name}": will not able to create pod with invalid DNS label: ${name}-9`,
    ]);
  });

  it('keeps completions, selector and template immutable', () => {
    const old = {
      ...defaulted('batch/Job', withGeneratedSelector(job({ template }))),
      metadata: { name: 'pi', namespace: 'default', uid: 'u', resourceVersion: '4' },
    };
    const changed = structuredClone(old) as KubeObject & { spec: Record<string, unknown> };
    changed.spec.completions = 5;
    changed.spec.parallelism = 5;
    expect(messages(updateErrors('batch/Job', changed, old))).toEqual([
      'spec.completions: Invalid value: 5: field is immutable',
    ]);
    const relabelled = structuredClone(old) as KubeObject & {
      spec: { template: { metadata: { labels: Record<string, string> } } };
    };
    relabelled.spec.template.metadata.labels.extra = 'x';
    expect(messages(updateErrors('batch/Job', relabelled, old))).toEqual([
      'spec.template: Invalid value: core.PodTemplateSpec{...}: field is immutable',
    ]);
  });

  it('lets indexed jobs scale completions together with parallelism', () => {
    const indexed = withGeneratedSelector(
      job({ template, completionMode: 'Indexed', completions: 2, parallelism: 2 }),
    );
    const old = {
      ...defaulted('batch/Job', indexed),
      metadata: { ...indexed.metadata, resourceVersion: '4' },
    } as KubeObject & {
      spec: Record<string, unknown>;
    };
    const scaled = structuredClone(old);
    scaled.spec.completions = 3;
    scaled.spec.parallelism = 3;
    expect(updateErrors('batch/Job', scaled, old)).toEqual([]);
    const alone = structuredClone(old);
    alone.spec.completions = 3;
    expect(messages(updateErrors('batch/Job', alone, old))).toEqual([
      'spec.completions: Invalid value: 3: can only be modified in tandem with spec.parallelism',
    ]);
  });
});

function cronJob(spec: Record<string, unknown>, name = 'hello'): KubeObject {
  return { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name, namespace: 'default' }, spec };
}

const jobTemplate = { spec: { template } };

describe('CronJob', () => {
  it('gets the batch/v1 defaults; the job template gets pod-template defaults only', () => {
    expect(defaulted('batch/CronJob', cronJob({ schedule: '*/5 * * * *', jobTemplate }))).toEqual(
      cronJob({
        schedule: '*/5 * * * *',
        concurrencyPolicy: 'Allow',
        suspend: false,
        successfulJobsHistoryLimit: 3,
        failedJobsHistoryLimit: 1,
        jobTemplate: {
          metadata: { creationTimestamp: null },
          spec: { template: { metadata: { creationTimestamp: null }, spec: defaultedTemplateSpec } },
        },
      }),
    );
  });

  it('accepts valid schedules, descriptors and time zones', () => {
    // Go's micro sign in both spellings, U+00B5 and U+03BC.
    for (const schedule of [
      '0 0 * * *',
      '@hourly',
      '@every 1h30m',
      '@every 1h500\u00b5s',
      '@every 1h500\u03bcs',
      '0 9-17/2 * JAN-jun mon,fri',
    ]) {
      expect(createErrors('batch/CronJob', cronJob({ schedule, jobTemplate }))).toEqual([]);
    }
    expect(
      createErrors(
        'batch/CronJob',
        cronJob({ schedule: '0 0 * * *', timeZone: 'Europe/Paris', jobTemplate }),
      ),
    ).toEqual([]);
  });

  it.each([
    ['', 'spec.schedule: Required value'],
    ['* * * *', 'spec.schedule: Invalid value: "* * * *": expected exactly 5 fields, found 4: [* * * *]'],
    ['61 * * * *', 'spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61'],
    [
      '5-1 * * * *',
      'spec.schedule: Invalid value: "5-1 * * * *": beginning of range (5) beyond end of range (1): 5-1',
    ],
    [
      'x * * * *',
      'spec.schedule: Invalid value: "x * * * *": failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax',
    ],
    ['@fortnightly', 'spec.schedule: Invalid value: "@fortnightly": unrecognized descriptor: @fortnightly'],
    [
      'TZ=UTC 0 0 * * *',
      'spec.schedule: Invalid value: "TZ=UTC 0 0 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    ],
  ])('rejects the schedule %j', (schedule, expected) => {
    expect(messages(createErrors('batch/CronJob', cronJob({ schedule, jobTemplate })))).toEqual([expected]);
  });

  it('rejects unknown and local time zones', () => {
    expect(
      messages(
        createErrors('batch/CronJob', cronJob({ schedule: '@daily', timeZone: 'Mars/Olympus', jobTemplate })),
      ),
    ).toEqual(['spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus']);
    expect(
      messages(createErrors('batch/CronJob', cronJob({ schedule: '@daily', timeZone: '', jobTemplate }))),
    ).toEqual(['spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string']);
  });

  it('limits names to 52 characters and forbids a job template selector', () => {
    const name = 'c'.repeat(53);
    expect(
      messages(createErrors('batch/CronJob', cronJob({ schedule: '@daily', jobTemplate }, name))),
    ).toEqual([`metadata.name: Invalid value: "${name}": must be no more than 52 characters`]);
    const selected = { spec: { template, selector: { matchLabels: { a: 'b' } } } };
    expect(
      messages(createErrors('batch/CronJob', cronJob({ schedule: '@daily', jobTemplate: selected }))),
    ).toEqual([
      'spec.jobTemplate.spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated',
    ]);
  });

  it('checks the concurrency policy and the job template', () => {
    expect(
      messages(
        createErrors(
          'batch/CronJob',
          cronJob({
            schedule: '@daily',
            concurrencyPolicy: 'Sometimes',
            jobTemplate: { spec: { template: { spec: { containers: [container] } } } },
          }),
        ),
      ),
    ).toEqual([
      'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
      'spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    ]);
  });

  it('validates names like other DNS subdomains', () => {
    expect(
      messages(createErrors('batch/CronJob', cronJob({ schedule: '@daily', jobTemplate }, 'Hello'))),
    ).toEqual([`metadata.name: Invalid value: "Hello": ${DNS_SUBDOMAIN_RULE}`]);
  });
});
