// The control plane process's environment: its malloc settings, unless the user set their own.
import { describe, expect, it } from 'vitest';
import {
  CONTROL_PLANE_MALLOC_ENV,
  controlPlaneEnvironment,
} from '../../../src/cluster/controlplane-process.js';

describe('controlPlaneEnvironment', () => {
  it('adds the malloc settings to the environment passed on', () => {
    const env = controlPlaneEnvironment({ PATH: '/usr/bin', TKUBE_DATASTORE_ENDPOINT: 'sqlite://' });
    expect(env).toEqual({
      PATH: '/usr/bin',
      TKUBE_DATASTORE_ENDPOINT: 'sqlite://',
      MALLOC_MMAP_THRESHOLD_: '65536',
    });
    expect(CONTROL_PLANE_MALLOC_ENV).toEqual({ MALLOC_MMAP_THRESHOLD_: '65536' });
  });

  it("keeps the user's own value", () => {
    expect(controlPlaneEnvironment({ MALLOC_MMAP_THRESHOLD_: '131072' }).MALLOC_MMAP_THRESHOLD_).toBe(
      '131072',
    );
  });
});
