import { describe, expect, it } from 'vitest';
import { canonicalQuantity, quantityOrNil } from '../../../src/apiserver/printers/quantity.js';

describe('canonicalQuantity (Quantity.String)', () => {
  it.each([
    ['1Gi', '1Gi'],
    ['1024Mi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['0.5Gi', '512Mi'],
    ['1000Mi', '1000Mi'],
    ['1025Ki', '1025Ki'],
    ['0.1Ki', '102400m'],
    ['-1Gi', '-1Gi'],
    ['0Gi', '0'],
    ['0', '0'],
    ['1500m', '1500m'],
    ['1.5', '1500m'],
    ['0.5', '500m'],
    ['2000', '2k'],
    ['1500', '1500'],
    ['1000k', '1M'],
    ['0.001k', '1'],
    ['100Gi', '100Gi'],
    ['1e3', '1e3'],
    ['1000e0', '1e3'],
    ['12e6', '12e6'],
    ['1n', '1n'],
    ['0.0000000001', '1n'],
    ['007', '7'],
  ])('%s prints as %s', (input, output) => {
    expect(canonicalQuantity(input)).toBe(output);
  });

  it('accepts numbers, as JSON may carry them', () => {
    expect(canonicalQuantity(100)).toBe('100');
    expect(canonicalQuantity(0.25)).toBe('250m');
  });

  it('prints a missing quantity as 0 and a nil pointer as <nil>', () => {
    expect(canonicalQuantity(undefined)).toBe('0');
    expect(quantityOrNil(undefined)).toBe('<nil>');
    expect(quantityOrNil('2048Ki')).toBe('2Mi');
  });

  it('leaves text that is no quantity as it is', () => {
    expect(canonicalQuantity('ten')).toBe('ten');
    expect(canonicalQuantity('5Xi')).toBe('5Xi');
  });
});
