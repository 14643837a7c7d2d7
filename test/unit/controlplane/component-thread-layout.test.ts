// The component-thread layout: TKUBE_COMPONENT_THREADS when set, else one shared thread on a
// machine of up to two cores and a thread each above that; a mistyped value is refused.
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  COMPONENT_THREADS_ENV,
  componentThreadLayoutFrom,
  SHARED_THREAD_MAX_CORES,
} from '../../../src/controlplane/component-thread.js';

describe('componentThreadLayoutFrom', () => {
  it('shares one thread on up to two cores and gives each component its own above', () => {
    expect(SHARED_THREAD_MAX_CORES).toBe(2);
    expect(componentThreadLayoutFrom({}, 1)).toBe('shared');
    expect(componentThreadLayoutFrom({}, 2)).toBe('shared');
    expect(componentThreadLayoutFrom({}, 3)).toBe('separate');
    expect(componentThreadLayoutFrom({}, 16)).toBe('separate');
    expect(componentThreadLayoutFrom({ [COMPONENT_THREADS_ENV]: '' }, 2)).toBe('shared');
  });

  it('takes the environment over the core count', () => {
    expect(componentThreadLayoutFrom({ [COMPONENT_THREADS_ENV]: 'separate' }, 2)).toBe('separate');
    expect(componentThreadLayoutFrom({ [COMPONENT_THREADS_ENV]: 'shared' }, 8)).toBe('shared');
    expect(componentThreadLayoutFrom({ [COMPONENT_THREADS_ENV]: 'none' }, 8)).toBe('none');
  });

  it('refuses a value it does not know, naming the ones it takes', () => {
    expect(() => componentThreadLayoutFrom({ [COMPONENT_THREADS_ENV]: 'two' }, 2)).toThrow(
      'TKUBE_COMPONENT_THREADS="two": must be "separate", "shared" or "none"',
    );
  });

  it("counts this machine's cores when given none", () => {
    const cores = availableParallelism();
    expect(componentThreadLayoutFrom({})).toBe(cores <= 2 ? 'shared' : 'separate');
  });
});
