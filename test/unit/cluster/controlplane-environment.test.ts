// The control plane process's environment: its malloc settings, unless the user set their own,
// and its deferred default trust.
import { describe, expect, it } from 'vitest';
import {
  CONTROL_PLANE_MALLOC_ENV,
  controlPlaneEnvironment,
} from '../../../src/cluster/controlplane-process.js';

describe('controlPlaneEnvironment', () => {
  it('adds the malloc settings to the environment passed on', () => {
    const env = controlPlaneEnvironment({ PATH: '/usr/bin', TKUBE_DATASTORE_ENDPOINT: 'sqlite://' });
    expect(env).toMatchObject({
      PATH: '/usr/bin',
      TKUBE_DATASTORE_ENDPOINT: 'sqlite://',
      MALLOC_MMAP_THRESHOLD_: '65536',
      // Node's default trust deferred (deferred-default-trust.test.ts).
      TKUBE_DEFAULT_TRUST: 'deferred',
    });
    expect(CONTROL_PLANE_MALLOC_ENV).toEqual({ MALLOC_MMAP_THRESHOLD_: '65536' });
  });

  it("keeps the user's own value", () => {
    expect(controlPlaneEnvironment({ MALLOC_MMAP_THRESHOLD_: '131072' }).MALLOC_MMAP_THRESHOLD_).toBe(
      '131072',
    );
  });
});
