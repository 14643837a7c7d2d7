import { describe, expect, it } from 'vitest';
import { envMapping, expandReferences } from '../../../src/agent/kubelet/volumes/expansion.js';

describe('$(VAR) expansion', () => {
  const mapping = envMapping(
    new Map([
      ['A', 'alpha'],
      ['EMPTY', ''],
    ]),
  );

  it('replaces known references and keeps unknown ones', () => {
    expect(expandReferences('x-$(A)-y', mapping)).toBe('x-alpha-y');
    expect(expandReferences('$(EMPTY)', mapping)).toBe('');
    expect(expandReferences('$(B)', mapping)).toBe('$(B)');
  });

  it('treats $$ as an escaped $, and leaves other $ and unterminated references alone', () => {
    expect(expandReferences('$$(A)', mapping)).toBe('$(A)');
    expect(expandReferences('$$$(A)', mapping)).toBe('$alpha');
    expect(expandReferences('cost $5 $', mapping)).toBe('cost $5 $');
    expect(expandReferences('$(A', mapping)).toBe('$(A');
    expect(expandReferences('$(A)$(A)', mapping)).toBe('alphaalpha');
  });
});
