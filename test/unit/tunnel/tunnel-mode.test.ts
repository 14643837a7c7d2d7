// The setting that forces the apiserver's tunnel: read from the control plane's environment.
import { describe, expect, it } from 'vitest';
import { tunnelModeFrom } from '../../../src/apiserver/tunnel/dialer.js';

describe('tunnelModeFrom', () => {
  it('is auto unless always is asked, and refuses anything else', () => {
    expect(tunnelModeFrom({})).toBe('auto');
    expect(tunnelModeFrom({ TKUBE_APISERVER_TUNNEL: 'auto' })).toBe('auto');
    expect(tunnelModeFrom({ TKUBE_APISERVER_TUNNEL: 'always' })).toBe('always');
    expect(() => tunnelModeFrom({ TKUBE_APISERVER_TUNNEL: 'sometimes' })).toThrow(
      'TKUBE_APISERVER_TUNNEL="sometimes": must be "always" or "auto"',
    );
  });
});
