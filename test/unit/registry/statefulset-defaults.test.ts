// StatefulSet defaulting: upstream's SetDefaults_StatefulSet, and the field its strategy drops while
// the MaxUnavailableStatefulSet feature gate is off (alpha, off in 1.33).
import { describe, expect, it } from 'vitest';
import { defaultStatefulSet } from '../../../src/apiserver/registry/defaults/apps.js';

describe('defaultStatefulSet', () => {
  it('fills RollingUpdate with partition 0 and drops maxUnavailable, as the disabled gate does', () => {
    const statefulSet: Record<string, unknown> = {
      spec: {
        selector: { matchLabels: { app: 'db' } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: { containers: [{ name: 'db', image: 'db' }] },
        },
      },
    };
    defaultStatefulSet(statefulSet);
    const spec = statefulSet.spec as Record<string, unknown>;
    expect(spec.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    expect(spec.podManagementPolicy).toBe('OrderedReady');
    expect(spec.replicas).toBe(1);
    expect(spec.persistentVolumeClaimRetentionPolicy).toEqual({
      whenDeleted: 'Retain',
      whenScaled: 'Retain',
    });
  });
});
