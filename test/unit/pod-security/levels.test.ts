import { describe, expect, it } from 'vitest';
import {
  formatLabelErrors,
  levelVersionString,
  parseVersion,
  policyFromLabels,
} from '../../../src/apiserver/admission/pod-security/levels.js';

const latest = (level: string) => ({ level, version: 'latest' });

describe('policyFromLabels', () => {
  it('defaults every mode to privileged:latest', () => {
    expect(policyFromLabels({}).policy).toEqual({
      enforce: latest('privileged'),
      audit: latest('privileged'),
      warn: latest('privileged'),
    });
    expect(policyFromLabels(undefined).errors).toEqual([]);
  });

  it('reads each mode and version', () => {
    const { policy, errors } = policyFromLabels({
      'pod-security.kubernetes.io/enforce': 'baseline',
      'pod-security.kubernetes.io/enforce-version': 'v1.30',
      'pod-security.kubernetes.io/audit': 'restricted',
      'pod-security.kubernetes.io/warn': 'restricted',
      'pod-security.kubernetes.io/warn-version': 'latest',
    });
    expect(errors).toEqual([]);
    expect(policy).toEqual({
      enforce: { level: 'baseline', version: 30 },
      audit: latest('restricted'),
      warn: latest('restricted'),
    });
    expect(levelVersionString(policy.enforce)).toBe('baseline:v1.30');
  });

  it('raises warn to a stricter enforce level and version when warn is not labelled', () => {
    const { policy } = policyFromLabels({
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/enforce-version': 'v1.25',
    });
    expect(policy.warn).toEqual({ level: 'restricted', version: 25 });
    expect(policy.audit).toEqual(latest('privileged'));
    const withWarnVersion = policyFromLabels({
      'pod-security.kubernetes.io/enforce': 'baseline',
      'pod-security.kubernetes.io/warn-version': 'v1.29',
    });
    expect(withWarnVersion.policy.warn).toEqual({ level: 'baseline', version: 29 });
  });

  it('fails closed for enforce and open for audit and warn on invalid values', () => {
    const { policy, errors } = policyFromLabels({
      'pod-security.kubernetes.io/enforce': 'strict',
      'pod-security.kubernetes.io/audit': 'bogus',
      'pod-security.kubernetes.io/warn-version': '1.30',
    });
    expect(policy.enforce).toEqual(latest('restricted'));
    expect(policy.audit).toEqual(latest('privileged'));
    // An invalid enforce level does not raise warn.
    expect(policy.warn).toEqual(latest('privileged'));
    expect(formatLabelErrors(errors)).toBe(
      '[metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted, ' +
        'metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "bogus": must be one of privileged, baseline, restricted, ' +
        'metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.30": must be "latest" or "v1.x"]',
    );
    expect(formatLabelErrors(errors.slice(2))).toBe(
      'metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.30": must be "latest" or "v1.x"',
    );
  });

  it.each([
    ['latest', { ok: true, value: 'latest' }],
    ['v1.0', { ok: true, value: 0 }],
    ['v1.33', { ok: true, value: 33 }],
    ['v1.033', { ok: false, error: 'must be "latest" or "v1.x"' }],
    ['v2.1', { ok: false, error: 'must be "latest" or "v1.x"' }],
    ['Latest', { ok: false, error: 'must be "latest" or "v1.x"' }],
  ])('parseVersion(%s)', (input, expected) => {
    expect(parseVersion(input)).toEqual(expected);
  });
});
