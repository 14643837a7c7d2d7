import { describe, expect, it } from 'vitest';
import {
  missingCapabilities,
  securityFromMissingCapabilities,
} from '../../../src/providers/docker/security.js';

describe('node security from the capability bounding set', () => {
  it('names the capabilities a VM without CAP_SYS_RESOURCE lacks', () => {
    expect(missingCapabilities('000001fffeffffff', 40)).toEqual(['SYS_RESOURCE']);
  });

  it('finds nothing missing in a full set, and ignores bits past the last capability', () => {
    expect(missingCapabilities('000001ffffffffff', 40)).toEqual([]);
    expect(missingCapabilities('000000ffffffffff', 39)).toEqual([]);
    expect(missingCapabilities('000000ffffffffff', 40)).toEqual(['CHECKPOINT_RESTORE']);
  });

  it('lists several missing capabilities in bit order', () => {
    // Bits 12 (NET_ADMIN) and 21 (SYS_ADMIN) cleared.
    const capBnd = (0x1ffffffffffn & ~(1n << 12n) & ~(1n << 21n)).toString(16);
    expect(missingCapabilities(capBnd, 40)).toEqual(['NET_ADMIN', 'SYS_ADMIN']);
  });

  it('is privileged when nothing is missing, else drops what is', () => {
    expect(securityFromMissingCapabilities([])).toEqual({ privileged: true });
    expect(securityFromMissingCapabilities(['SYS_RESOURCE'])).toEqual({
      privileged: false,
      capDrop: ['SYS_RESOURCE'],
    });
  });
});
