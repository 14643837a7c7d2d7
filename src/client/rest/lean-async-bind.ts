// Node's HTTP/2 client binds one AsyncResource per request (ClientHttp2Session.request). Before
// Node 25, AsyncResource#bind also gives the bound function a deprecated `asyncResource`
// accessor (DEP0172) made of two util.deprecate wrappers, each of which re-parents a function's
// prototype: 13 us per call measured on Node 20, more than the rest of a request's client-side
// cost (nodejs/node#58218). Node 25 dropped the accessor (End-of-Life); this gives older
// releases a bind without it, so every request of every client in the process is cheaper.
import { AsyncResource } from 'node:async_hooks';

type Bindable = (this: unknown, ...args: unknown[]) => unknown;

/** Node's own bind; it takes an optional thisArg the type declarations leave out. */
const original = AsyncResource.prototype.bind as (
  this: AsyncResource,
  fn: unknown,
  thisArg?: unknown,
) => unknown;
let installed = false;

/** Whether this Node's bind still adds the deprecated accessor (any release before 25). */
function bindAddsAccessor(): boolean {
  const bound = original.call(new AsyncResource('probe'), () => undefined) as object;
  return Object.hasOwn(bound, 'asyncResource');
}

function leanBind<F extends Bindable>(this: AsyncResource, fn: F, thisArg?: unknown): F {
  // Anything but a function gets Node's own validation error.
  if (typeof fn !== 'function') return original.call(this, fn, thisArg) as F;
  const resource = this;
  const bound =
    thisArg === undefined
      ? function (this: unknown, ...args: unknown[]) {
          return resource.runInAsyncScope(fn, this, ...args);
        }
      : (...args: unknown[]) => resource.runInAsyncScope(fn, thisArg, ...args);
  Object.defineProperty(bound, 'length', { configurable: true, value: fn.length });
  return bound as F;
}

/** Replaces AsyncResource#bind in this thread (each worker thread has its own) where Node's is slow. */
export function installLeanAsyncBind(): void {
  if (installed) return;
  installed = true;
  if (bindAddsAccessor()) AsyncResource.prototype.bind = leanBind;
}
