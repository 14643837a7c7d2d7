import { describe, expect, it } from 'vitest';
import { canonicalIpAddress, ipAddressFromBytes, ipAddressToBytes } from '../../../src/pki/ip-address.js';

describe('ipAddressToBytes', () => {
  it.each([
    ['127.0.0.1', '7f000001'],
    ['10.96.0.1', '0a600001'],
    ['::1', '00000000000000000000000000000001'],
    ['::', '00000000000000000000000000000000'],
    ['fd00:10:244::1', 'fd000010024400000000000000000001'],
    ['2001:db8::', '20010db8000000000000000000000000'],
    ['1:2:3:4:5:6:7:8', '00010002000300040005000600070008'],
    ['64:ff9b::192.0.2.33', '0064ff9b0000000000000000c0000221'],
    // IPv4-mapped addresses travel as their 4 IPv4 bytes, as Go writes them.
    ['::ffff:192.168.1.2', 'c0a80102'],
  ])('encodes %s', (address, hex) => {
    expect(ipAddressToBytes(address).toString('hex')).toBe(hex);
  });

  it.each(['', 'localhost', '256.1.1.1', '1.2.3', '::g', '1::2::3', 'fe80::1%eth0'])(
    'rejects %j',
    (address) => {
      expect(() => ipAddressToBytes(address)).toThrow(/invalid IP address/);
    },
  );
});

describe('ipAddressFromBytes', () => {
  it.each([
    ['0a600001', '10.96.0.1'],
    ['00000000000000000000000000000001', '::1'],
    ['00000000000000000000000000000000', '::'],
    ['fd000010024400000000000000000001', 'fd00:10:244::1'],
    // The longest run of zero groups is the one shortened; a single zero group stays.
    ['20010db8000000010000000000000001', '2001:db8:0:1::1'],
    ['00010000000300040005000600070008', '1:0:3:4:5:6:7:8'],
  ])('formats %s as %s', (hex, text) => {
    expect(ipAddressFromBytes(Buffer.from(hex, 'hex'))).toBe(text);
  });

  it('rejects lengths other than 4 and 16', () => {
    expect(() => ipAddressFromBytes(Buffer.alloc(5))).toThrow(/4 or 16 bytes/);
  });
});

describe('canonicalIpAddress', () => {
  it('gives one text for equal addresses', () => {
    expect(canonicalIpAddress('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(canonicalIpAddress('FD00:0:0::1')).toBe('fd00::1');
    expect(canonicalIpAddress('::ffff:10.0.0.1')).toBe('10.0.0.1');
  });
});
