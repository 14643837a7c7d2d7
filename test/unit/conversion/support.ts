import { expect } from 'vitest';

// Exact JSON, key order included: Go writes struct fields in declaration order.
expect.extend({
  toBeJson(received: unknown, expected: unknown) {
    const actual = JSON.stringify(received, null, 1);
    const wanted = JSON.stringify(expected, null, 1);
    return {
      pass: actual === wanted,
      message: () => this.utils.diff(wanted, actual) ?? `expected ${actual} to be ${wanted}`,
    };
  },
});

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: the augmentation must repeat vitest's own declaration.
  interface Matchers<T = any> {
    toBeJson: (expected: unknown) => T;
  }
}
