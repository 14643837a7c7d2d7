import { describe, expect, it } from 'vitest';
import { QUANTITY_FORMAT_ERROR } from '../../../src/api/quantity.js';
import { rulesFor } from '../../../src/apiserver/registry/validation/index.js';
import {
  formatIp,
  parseIpSloppy,
  validateCidr,
  validateIp,
  validateNonSpecialIp,
} from '../../../src/apiserver/registry/validation/ip.js';
import {
  isDns1035Label,
  isDns1123Label,
  isValidPortName,
  nameIsDnsSubdomain,
  nameIsPathSegment,
} from '../../../src/apiserver/registry/validation/names.js';
import { messages } from './support.js';

describe('decode errors', () => {
  it('reports the first quantity that does not parse, for kinds that hold quantities', () => {
    const rules = rulesFor('', 'Pod');
    const pod = (resources: unknown) => ({ spec: { containers: [{ name: 'a', image: 'b', resources }] } });
    expect(rules?.decodeError?.(pod({ limits: { cpu: '500m', memory: 128974848 } }))).toBeUndefined();
    expect(rules?.decodeError?.(pod({ limits: { cpu: 'half' } }))).toBe(QUANTITY_FORMAT_ERROR);
    expect(rules?.decodeError?.(pod({ requests: { memory: '1Gb' } }))).toBe(QUANTITY_FORMAT_ERROR);
    expect(rules?.decodeError?.(pod({ requests: { memory: '1GG' } }))).toBe(
      "unable to parse quantity's suffix",
    );
    expect(rulesFor('', 'Secret')?.decodeError).toBeUndefined();
  });

  it('reports ConfigMap data and binaryData values that are not strings, and makes null the empty string', () => {
    const decodeError = rulesFor('', 'ConfigMap')?.decodeError;
    expect(decodeError?.({ data: { a: 'x' }, binaryData: { b: 'eA==' } })).toBeUndefined();
    expect(decodeError?.({ data: { a: 1 } })).toBe(
      'json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    );
    expect(decodeError?.({ binaryData: { a: false } })).toBe(
      'json: cannot unmarshal bool into Go struct field ConfigMap.binaryData of type []uint8',
    );
    expect(decodeError?.({ data: 'x' })).toBe(
      'json: cannot unmarshal string into Go struct field ConfigMap.data of type map[string]string',
    );
    const withNull = { data: { a: null } };
    expect(decodeError?.(withNull)).toBeUndefined();
    expect(withNull.data).toEqual({ a: '' });
  });

  it('looks inside templates and claim templates', () => {
    const statefulSet = {
      spec: { volumeClaimTemplates: [{ spec: { resources: { requests: { storage: '10 Gi' } } } }] },
    };
    expect(rulesFor('apps', 'StatefulSet')?.decodeError?.(statefulSet)).toBe(QUANTITY_FORMAT_ERROR);
  });
});

describe('IP and CIDR checks (1.33: legacy parsing, strict rules behind StrictIPCIDRValidation)', () => {
  it('parses sloppily like netutils', () => {
    expect(formatIp(parseIpSloppy('010.001.2.3')!.bytes)).toBe('10.1.2.3');
    expect(formatIp(parseIpSloppy('2001:0db8:0:0:0:0:0:1')!.bytes)).toBe('2001:db8::1');
    expect(parseIpSloppy('1.2.3')).toBeUndefined();
  });

  it('accepts non-canonical values unless strict', () => {
    expect(validateIp('spec.clusterIP', '010.0.0.1')).toEqual([]);
    expect(messages(validateIp('spec.clusterIP', '010.0.0.1', true))).toEqual([
      'spec.clusterIP: Invalid value: "010.0.0.1": must not have leading 0s',
    ]);
    expect(messages(validateIp('spec.clusterIP', '2001:DB8::1', true))).toEqual([
      'spec.clusterIP: Invalid value: "2001:DB8::1": must be in canonical form ("2001:db8::1")',
    ]);
    expect(messages(validateIp('ip', 'x'))).toEqual([
      'ip: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    ]);
    expect(validateCidr('cidr', '10.0.0.1/8')).toEqual([]);
    expect(messages(validateCidr('cidr', '10.0.0.1/8', true))).toEqual([
      'cidr: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length',
    ]);
    expect(messages(validateCidr('cidr', '10.0.0.0/33'))).toEqual([
      'cidr: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ]);
  });

  it('rejects special addresses where endpoints need real ones', () => {
    expect(messages(validateNonSpecialIp('ip', '127.0.0.1'))).toEqual([
      'ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    ]);
    expect(messages(validateNonSpecialIp('ip', '0.0.0.0'))).toEqual([
      'ip: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)',
    ]);
    expect(validateNonSpecialIp('ip', '10.1.2.3')).toEqual([]);
  });
});

describe('name rules', () => {
  it('words DNS label and DNS-1035 problems like apimachinery', () => {
    expect(isDns1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
    expect(isDns1035Label('1abc')).toHaveLength(1);
    expect(isValidPortName('HTTP')).toEqual([
      'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
      'must contain at least one letter (a-z)',
    ]);
  });

  it('masks a trailing dash of generateName prefixes', () => {
    expect(nameIsDnsSubdomain('web-', true)).toEqual([]);
    expect(nameIsDnsSubdomain('web-', false)).toHaveLength(1);
    expect(nameIsPathSegment('..', false)).toEqual(["may not be '..'"]);
    expect(nameIsPathSegment('a%b', false)).toEqual(["may not contain '%'"]);
  });
});
