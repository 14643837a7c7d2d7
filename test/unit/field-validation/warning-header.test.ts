import { describe, expect, it } from 'vitest';
import { warningHeader } from '../../../src/apiserver/field-validation/index.js';

describe('warningHeader', () => {
  it('formats 299 warnings with the agent "-", escaping quotes and backslashes only', () => {
    expect(warningHeader(['unknown field "spec.replicasx"', 'path a\\b', 'naïve ✓'])).toEqual([
      '299 - "unknown field \\"spec.replicasx\\""',
      '299 - "path a\\\\b"',
      '299 - "naïve ✓"',
    ]);
  });

  it('drops empty and repeated texts, and texts with control characters', () => {
    expect(warningHeader(['a', '', 'a', 'line\nbreak', 'c1\u0085', 'b'])).toEqual(['299 - "a"', '299 - "b"']);
  });

  it('cuts every text to 256 runes once they pass 4096 runes in all, and stops at 4096 again', () => {
    const long = (letter: string) => letter.repeat(1000);
    const texts = ['a', 'b', 'c', 'd'].map(long);
    expect(warningHeader(texts)).toEqual(texts.map((text) => `299 - "${text}"`));

    const over = [...texts, long('e')];
    const cut = (letter: string) => `299 - "${letter.repeat(256)}"`;
    expect(warningHeader(over)).toEqual(['a', 'b', 'c', 'd', 'e'].map(cut));

    const many = Array.from({ length: 20 }, (_, i) => `${String.fromCharCode(0x41 + i)}`.repeat(300));
    // 16 texts of 256 runes reach 4096: the rest are not sent.
    expect(warningHeader([long('z'), long('y'), long('x'), long('w'), long('v'), ...many])).toHaveLength(16);
  });

  it('counts runes, not UTF-16 units, when cutting', () => {
    const texts = ['😀'.repeat(2000), '😁'.repeat(2000), '😂'.repeat(90)];
    expect(warningHeader(texts)).toEqual(texts.map((text) => `299 - "${text}"`));
    expect(warningHeader([...texts, 'x'.repeat(10)])).toEqual([
      `299 - "${'😀'.repeat(256)}"`,
      `299 - "${'😁'.repeat(256)}"`,
      `299 - "${'😂'.repeat(90)}"`,
      `299 - "${'x'.repeat(10)}"`,
    ]);
  });
});
