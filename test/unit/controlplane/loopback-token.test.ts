import { describe, expect, it } from 'vitest';
import { Authenticator } from '../../../src/apiserver/auth/authenticator.js';
import {
  isLoopbackToken,
  loopbackToken,
  loopbackTokenUser,
  newLoopbackSecret,
} from '../../../src/apiserver/auth/loopback-token.js';
import type { ApiRequest, UserInfo } from '../../../src/apiserver/http/types.js';
import { StatusError } from '../../../src/apiserver/status.js';

const SCHEDULER: UserInfo = { name: 'system:kube-scheduler', groups: ['system:authenticated'] };
const CONTROLLER: UserInfo = {
  name: 'system:serviceaccount:kube-system:generic-garbage-collector',
  uid: 'u-1',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'],
  extra: { 'authentication.kubernetes.io/credential-id': ['x'] },
};

const bearer = (token: string) =>
  ({ headers: { authorization: `Bearer ${token}` } }) as unknown as ApiRequest;

/** The token with its identity part replaced by `claims`, keeping the secret. */
function withClaims(token: string, claims: string): string {
  const [prefix, , secret] = token.split('.');
  return `${prefix}.${Buffer.from(claims).toString('base64url')}.${secret}`;
}

describe('loopback tokens', () => {
  it('carry the identity they were made for, to holders of the same secret only', () => {
    const secret = newLoopbackSecret();
    const token = loopbackToken(secret, CONTROLLER);
    expect(isLoopbackToken(token)).toBe(true);
    expect(loopbackTokenUser(secret, token)).toEqual(CONTROLLER);
    expect(loopbackTokenUser(newLoopbackSecret(), token)).toBeUndefined();
    expect(loopbackToken(secret, SCHEDULER)).not.toBe(token);
  });

  it('draws a different secret each time', () => {
    expect(newLoopbackSecret()).not.toBe(newLoopbackSecret());
    expect(newLoopbackSecret()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it.each([
    ['not JSON', 'not json'],
    ['no name', JSON.stringify({ groups: [] })],
    ['an empty name', JSON.stringify({ name: '', groups: [] })],
    ['groups that are not strings', JSON.stringify({ name: 'a', groups: [1] })],
    ['extra values that are not string lists', JSON.stringify({ name: 'a', groups: [], extra: { k: 'v' } })],
    ['a uid that is not a string', JSON.stringify({ name: 'a', groups: [], uid: 7 })],
  ])('refuses an identity with %s', (_, claims) => {
    const secret = newLoopbackSecret();
    expect(loopbackTokenUser(secret, withClaims(loopbackToken(secret, SCHEDULER), claims))).toBeUndefined();
  });

  it('refuses other token forms, a truncated secret and a missing separator', () => {
    const secret = newLoopbackSecret();
    const token = loopbackToken(secret, SCHEDULER);
    expect(isLoopbackToken('abc123.0123456789abcdef')).toBe(false);
    expect(loopbackTokenUser(secret, 'abc123.0123456789abcdef')).toBeUndefined();
    expect(loopbackTokenUser(secret, token.slice(0, -1))).toBeUndefined();
    expect(loopbackTokenUser(secret, 'tkube-loopback.nodot')).toBeUndefined();
  });
});

describe('Authenticator with the loopback secret', () => {
  it('authenticates loopback tokens as their identity, adding system:authenticated', async () => {
    const authenticator = new Authenticator();
    const secret = newLoopbackSecret();
    authenticator.trustLoopbackSecret(secret);
    expect(await authenticator.authenticate(bearer(loopbackToken(secret, CONTROLLER)))).toEqual({
      ...CONTROLLER,
      groups: [...CONTROLLER.groups, 'system:authenticated'],
    });
    // Already there: not added twice.
    expect(await authenticator.authenticate(bearer(loopbackToken(secret, SCHEDULER)))).toEqual(SCHEDULER);
  });

  it('rejects loopback tokens before a secret is trusted, and those made with another secret', async () => {
    const authenticator = new Authenticator();
    const secret = newLoopbackSecret();
    const token = loopbackToken(secret, SCHEDULER);
    await expect(authenticator.authenticate(bearer(token))).rejects.toBeInstanceOf(StatusError);
    authenticator.trustLoopbackSecret(secret);
    await expect(authenticator.authenticate(bearer(token))).resolves.toEqual(SCHEDULER);
    const forged = loopbackToken(newLoopbackSecret(), { name: 'system:admin', groups: ['system:masters'] });
    await expect(authenticator.authenticate(bearer(forged))).rejects.toMatchObject({ code: 401 });
  });
});
