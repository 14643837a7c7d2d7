// Progress is animated only on a terminal outside CI and without NO_COLOR; plain lines otherwise.
import { describe, expect, it } from 'vitest';
import { defaultProgressMode } from '../../../src/cluster/progress.js';

describe('progress mode', () => {
  it.each([
    [true, {}, 'interactive'],
    [false, {}, 'plain'],
    [true, { CI: 'true' }, 'plain'],
    [true, { CI: 'false' }, 'interactive'],
    [true, { NO_COLOR: '1' }, 'plain'],
    [true, { NO_COLOR: '' }, 'interactive'],
  ] as const)('TTY %s with %j → %s', (isTTY, env, mode) => {
    expect(defaultProgressMode({ isTTY }, env)).toBe(mode);
  });
});
