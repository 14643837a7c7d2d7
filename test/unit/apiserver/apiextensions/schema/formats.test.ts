// The string formats custom resources are validated against (kube-openapi's strfmt checks).
import { describe, expect, it } from 'vitest';
import { matchesFormat, supportedFormat } from '../../../../../src/apiserver/apiextensions/schema/formats.js';

describe('formats', () => {
  const cases: [string, string, boolean][] = [
    ['ipv4', '10.0.0.1', true],
    ['ipv4', '10.0.0', false],
    ['ipv6', '2001:db8::1', true],
    ['ipv6', '10.0.0.1', false],
    ['cidr', '10.0.0.0/8', true],
    ['cidr', '10.0.0.0', false],
    ['mac', '00:1a:2b:3c:4d:5e', true],
    ['mac', '00:1a:2b', false],
    ['uuid', '123e4567-e89b-12d3-a456-426614174000', true],
    ['uuid', '123e4567', false],
    ['hostname', 'example.com', true],
    ['hostname', '-bad-.com', false],
    ['email', 'someone@example.com', true],
    ['email', 'someone', false],
    ['uri', 'https://example.com/x', true],
    ['uri', 'not a uri', false],
    ['date', '2024-02-29', true],
    ['date', '2023-02-29', false],
    ['datetime', '2024-01-02T03:04:05Z', true],
    ['datetime', '2024-01-02', false],
    ['duration', '1h30m', true],
    ['duration', '5 minutes', true],
    ['duration', '1.5\u00b5s', true],
    ['duration', '1.5\u03bcs2ns', true],
    ['duration', '1.5\u03bc', false],
    ['duration', 'soon', false],
    ['byte', 'aGVsbG8=', true],
    ['byte', 'not base64!', false],
  ];
  it.each(cases)('%s %j: %s', (format, text, expected) => {
    expect(matchesFormat(format, text)).toBe(expected);
  });

  it('normalizes supported names and strips the others', () => {
    expect(supportedFormat('date-time')).toBe('datetime');
    expect(supportedFormat('int32')).toBe('');
    expect(supportedFormat('made-up')).toBe('');
  });
});
