// Bearer tokens for the control plane's own components (controllers, scheduler, fake kubelets).
// kube-apiserver mints one loopback token at start-up; tkube's components act under many
// identities and some run on other threads, which cannot register a token with the apiserver
// before using it. So a token names its identity and proves it knows the secret the control plane
// drew at start-up: `tkube-loopback.<identity as base64url JSON>.<secret>`. Whoever holds the
// secret may act as anyone, as whoever holds kube-apiserver's loopback token may.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { UserInfo } from '../http/types.js';

const PREFIX = 'tkube-loopback.';

/** A fresh secret, drawn once per control plane run. */
export function newLoopbackSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The token acting as `identity`, for holders of `secret`. */
export function loopbackToken(secret: string, identity: UserInfo): string {
  const claims = { name: identity.name, uid: identity.uid, groups: identity.groups, extra: identity.extra };
  return `${PREFIX}${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${secret}`;
}

/** Whether `token` has the loopback token's form (it may still be forged). */
export function isLoopbackToken(token: string): boolean {
  return token.startsWith(PREFIX);
}

/** The identity `token` acts as, or undefined unless it carries `secret` and a well-formed identity. */
export function loopbackTokenUser(secret: string, token: string): UserInfo | undefined {
  if (!isLoopbackToken(token)) return undefined;
  const dot = token.indexOf('.', PREFIX.length);
  if (dot < 0) return undefined;
  const presented = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(secret);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(token.slice(PREFIX.length, dot), 'base64url').toString());
  } catch {
    return undefined;
  }
  return isUserInfo(claims) ? claims : undefined;
}

function isUserInfo(value: unknown): value is UserInfo {
  if (typeof value !== 'object' || value === null) return false;
  const { name, uid, groups, extra } = value as Record<string, unknown>;
  return (
    typeof name === 'string' &&
    name !== '' &&
    (uid === undefined || typeof uid === 'string') &&
    Array.isArray(groups) &&
    groups.every((group) => typeof group === 'string') &&
    (extra === undefined ||
      (typeof extra === 'object' &&
        extra !== null &&
        Object.values(extra).every(
          (values) => Array.isArray(values) && values.every((v) => typeof v === 'string'),
        )))
  );
}
