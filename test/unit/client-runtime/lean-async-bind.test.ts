import { AsyncResource, executionAsyncId } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { installLeanAsyncBind } from '../../../src/client/rest/lean-async-bind.js';

describe('installLeanAsyncBind', () => {
  installLeanAsyncBind();

  it('binds functions that run in the resource’s async scope, with this and arguments passed on', () => {
    const resource = new AsyncResource('test');
    const seen: { id: number; self: unknown; args: unknown[] }[] = [];
    function record(this: unknown, ...args: unknown[]): string {
      seen.push({ id: executionAsyncId(), self: this, args });
      return 'result';
    }
    const bound = resource.bind(record);
    const receiver = { name: 'receiver' };
    expect(bound.call(receiver, 1, 'two')).toBe('result');
    expect(seen).toEqual([{ id: resource.asyncId(), self: receiver, args: [1, 'two'] }]);
    expect(bound.length).toBe(record.length);

    const withThis = (resource.bind as (fn: unknown, thisArg: unknown) => (...args: unknown[]) => unknown)(
      record,
      receiver,
    );
    withThis.call({ other: true }, 3);
    expect(seen[1]).toEqual({ id: resource.asyncId(), self: receiver, args: [3] });
  });

  it('leaves out the asyncResource property Node 25 removed (DEP0172)', () => {
    const bound = new AsyncResource('test').bind(() => 1);
    expect(Object.hasOwn(bound, 'asyncResource')).toBe(false);
    expect(AsyncResource.bind(() => 2)()).toBe(2);
  });

  it('still refuses what is not a function, as Node does', () => {
    const bind = new AsyncResource('test').bind as (fn: unknown) => unknown;
    expect(() => bind.call(new AsyncResource('test'), 'nope')).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_ARG_TYPE' }),
    );
  });
});
