import { describe, expect, it } from 'vitest';
import { ProtoWriter } from '../../../src/apiserver/openapi/protobuf/writer.js';
import { ProtoMessage } from './proto-reader.js';

describe('ProtoWriter', () => {
  it('writes tags and varints in the wire format', () => {
    const w = new ProtoWriter();
    w.int64(1, 150);
    w.bool(2, true);
    w.string(3, 'hi');
    expect([...w.finish()]).toEqual([0x08, 0x96, 0x01, 0x10, 0x01, 0x1a, 0x02, 0x68, 0x69]);
  });

  it('skips proto3 defaults but keeps oneof and repeated elements', () => {
    const w = new ProtoWriter();
    w.string(1, '');
    w.bool(2, false);
    w.int64(3, 0);
    w.double(4, 0);
    w.boolElement(5, false);
    w.stringElement(6, '');
    expect([...w.finish()]).toEqual([0x28, 0x00, 0x32, 0x00]);
  });

  it('writes doubles little-endian and negative int64 as ten-byte varints', () => {
    const w = new ProtoWriter();
    w.double(1, 1.5);
    w.int64(2, -1);
    const message = ProtoMessage.decode(w.finish());
    expect(message.double(1)).toBe(1.5);
    expect(message.varint(2)).toBe(2n ** 64n - 1n);
    expect(message.all(2)).toHaveLength(1);
  });

  it('prefixes nested messages with their length, however long and deep', () => {
    const long = 'x'.repeat(20_000);
    const w = new ProtoWriter();
    w.message(1, () => {
      w.string(1, 'short');
      w.message(2, () => w.string(1, long));
      w.message(3, () => {});
    });
    w.string(2, 'after');
    const bytes = w.finish();
    const outer = ProtoMessage.decode(bytes);
    expect(outer.string(2)).toBe('after');
    const inner = outer.message(1);
    expect(inner.string(1)).toBe('short');
    expect(inner.message(2).string(1)).toBe(long);
    expect(inner.message(3).fields).toEqual([]);
    // 20000 takes a three-byte length; the inner message 20003 + 9 bytes, also three.
    expect(bytes.length).toBe(1 + 3 + (1 + 1 + 5) + (1 + 3 + (1 + 3 + 20_000)) + 2 + (1 + 1 + 5));
  });

  it('grows past its first buffer', () => {
    const w = new ProtoWriter();
    for (let i = 0; i < 5000; i++) w.message(1, () => w.string(1, `entry-${i}-${'y'.repeat(40)}`));
    const entries = ProtoMessage.decode(w.finish()).messages(1);
    expect(entries).toHaveLength(5000);
    expect(entries[4999]!.string(1)).toBe(`entry-4999-${'y'.repeat(40)}`);
  });
});
