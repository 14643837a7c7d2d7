// The protobuf storage size computed from JSON, against the bytes kubectl 1.33 really sent for the
// same objects (the fixtures of kubectl-bodies.test.ts): within a few bytes of envelope fields.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { protobufEncodedSize } from '../../../src/apiserver/protobuf/encoded-size.js';

const dir = new URL('./fixtures/', import.meta.url);
const objects = readdirSync(dir)
  .filter((name) => name.endsWith('.json'))
  .map((name) => [name.slice(0, -'.json'.length)] as const);

describe('protobufEncodedSize', () => {
  it.each(objects)('%s: close to the protobuf body kubectl sent', (name) => {
    const object = JSON.parse(readFileSync(new URL(`${name}.json`, dir), 'utf8')) as {
      apiVersion: string;
      kind: string;
    };
    const actual = readFileSync(new URL(`${name}.bin`, dir)).length;
    const estimated = protobufEncodedSize(object.apiVersion, object.kind, object)!;
    expect(estimated).toBeGreaterThanOrEqual(actual - 8);
    expect(estimated).toBeLessThanOrEqual(actual * 1.1 + 24);
  });

  it('is undefined for kinds without a protobuf message', () => {
    expect(protobufEncodedSize('example.com/v1', 'Widget', {})).toBeUndefined();
  });
});
