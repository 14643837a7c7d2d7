import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import {
  type BootstrapTokenRejection,
  bootstrapTokenExpired,
  bootstrapTokenGroups,
  parseBootstrapToken,
  parseRfc3339,
  verifyBootstrapToken,
} from '../../../src/apiserver/auth/bootstrap-token.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const TOKEN = 'abc123.0123456789abcdef';

const b64 = (text: string) => Buffer.from(text).toString('base64');

/** A bootstrap-token Secret as `kubectl create secret generic --type=bootstrap.kubernetes.io/token` stores it. */
function secret(
  data: Record<string, string> | undefined,
  overrides: { name?: string; type?: string; deletionTimestamp?: string } = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: overrides.name ?? 'bootstrap-token-abc123',
      namespace: 'kube-system',
      ...(overrides.deletionTimestamp ? { deletionTimestamp: overrides.deletionTimestamp } : {}),
    },
    type: overrides.type ?? 'bootstrap.kubernetes.io/token',
    ...(data ? { data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])) } : {}),
  };
}

const valid = {
  'token-id': 'abc123',
  'token-secret': '0123456789abcdef',
  'usage-bootstrap-authentication': 'true',
};

/** Secrets by name, as the store would answer a kube-system lookup. */
function lookupOf(...secrets: KubeObject[]) {
  const byName = new Map(secrets.map((s) => [s.metadata!.name!, s]));
  const asked: string[] = [];
  const lookup = async (name: string) => {
    asked.push(name);
    return byName.get(name);
  };
  return { lookup, asked };
}

describe('verifyBootstrapToken', () => {
  const rejected: [string, string, KubeObject[], BootstrapTokenRejection][] = [
    ['a token of another form', 'eyJhbGciOi.payload.sig', [secret(valid)], 'not-a-bootstrap-token'],
    ['an id with capitals', 'ABC123.0123456789abcdef', [secret(valid)], 'not-a-bootstrap-token'],
    ['a secret too short', 'abc123.0123456789abcde', [secret(valid)], 'not-a-bootstrap-token'],
    ['a trailing newline', `${TOKEN}\n`, [secret(valid)], 'not-a-bootstrap-token'],
    ['no Secret for the id', TOKEN, [secret(valid, { name: 'bootstrap-token-zzz999' })], 'no-secret'],
    [
      'a Secret being deleted',
      TOKEN,
      [secret(valid, { deletionTimestamp: NOW.toISOString() })],
      'being-deleted',
    ],
    ['an Opaque Secret', TOKEN, [secret(valid, { type: 'Opaque' })], 'wrong-type'],
    ['a Secret without data', TOKEN, [secret(undefined)], 'wrong-type'],
    ['the wrong secret', TOKEN, [secret({ ...valid, 'token-secret': 'fedcba9876543210' })], 'wrong-secret'],
    ['a shorter stored secret', TOKEN, [secret({ ...valid, 'token-secret': '0123' })], 'wrong-secret'],
    ['no token-secret key', TOKEN, [secret({ ...valid, 'token-secret': '' })], 'wrong-secret'],
    ['a token-id that differs', TOKEN, [secret({ ...valid, 'token-id': 'zzz999' })], 'wrong-id'],
    ['an expired token', TOKEN, [secret({ ...valid, expiration: '2025-06-01T11:59:59Z' })], 'expired'],
    ['expiring this instant', TOKEN, [secret({ ...valid, expiration: '2025-06-01T12:00:00Z' })], 'expired'],
    ['an unparseable expiration', TOKEN, [secret({ ...valid, expiration: 'tomorrow' })], 'expired'],
    [
      'no usage-bootstrap-authentication',
      TOKEN,
      [secret({ 'token-id': 'abc123', 'token-secret': '0123456789abcdef' })],
      'not-for-authentication',
    ],
    [
      'usage-bootstrap-authentication other than "true"',
      TOKEN,
      [secret({ ...valid, 'usage-bootstrap-authentication': 'True' })],
      'not-for-authentication',
    ],
    [
      'an extra group outside system:bootstrappers:',
      TOKEN,
      [secret({ ...valid, 'auth-extra-groups': 'system:masters' })],
      'invalid-extra-groups',
    ],
    [
      'an extra group ending in a colon',
      TOKEN,
      [secret({ ...valid, 'auth-extra-groups': 'system:bootstrappers:worker:' })],
      'invalid-extra-groups',
    ],
    [
      'system:bootstrappers itself as an extra group',
      TOKEN,
      [secret({ ...valid, 'auth-extra-groups': 'system:bootstrappers' })],
      'invalid-extra-groups',
    ],
    [
      'an empty extra group in the list',
      TOKEN,
      [secret({ ...valid, 'auth-extra-groups': 'system:bootstrappers:a,,system:bootstrappers:b' })],
      'invalid-extra-groups',
    ],
  ];

  it.each(rejected)('rejects %s', async (_name, token, secrets, reason) => {
    const verdict = await verifyBootstrapToken(token, lookupOf(...secrets).lookup, NOW);
    expect(verdict.ok).toBe(false);
    expect(verdict.ok ? undefined : verdict.reason).toBe(reason);
  });

  it('authenticates a valid token as system:bootstrap:<id> in system:bootstrappers', async () => {
    const { lookup, asked } = lookupOf(secret(valid));
    expect(await verifyBootstrapToken(TOKEN, lookup, NOW)).toEqual({
      ok: true,
      user: { name: 'system:bootstrap:abc123', groups: ['system:bootstrappers'] },
    });
    expect(asked).toEqual(['bootstrap-token-abc123']);
  });

  it('adds valid extra groups, sorted and de-duplicated, and honours a future expiration', async () => {
    const { lookup } = lookupOf(
      secret({
        ...valid,
        expiration: '2025-06-01T13:00:00+01:00',
        'auth-extra-groups':
          'system:bootstrappers:kubeadm:default-node-token,system:bootstrappers:a-b,system:bootstrappers:a-b',
      }),
    );
    // 13:00+01:00 is 12:00Z: exactly now, so expired; one second later it is not.
    expect((await verifyBootstrapToken(TOKEN, lookup, NOW)).ok).toBe(false);
    const verdict = await verifyBootstrapToken(TOKEN, lookup, new Date(NOW.getTime() - 1000));
    expect(verdict).toEqual({
      ok: true,
      user: {
        name: 'system:bootstrap:abc123',
        groups: [
          'system:bootstrappers',
          'system:bootstrappers:a-b',
          'system:bootstrappers:kubeadm:default-node-token',
        ],
      },
    });
  });

  it('says in its message which Secret and key failed, as the apiserver log does', async () => {
    const verdict = await verifyBootstrapToken(
      TOKEN,
      lookupOf(secret({ ...valid, 'token-secret': 'fedcba9876543210' })).lookup,
      NOW,
    );
    expect(verdict).toMatchObject({
      message:
        'Bootstrap secret kube-system/bootstrap-token-abc123 matching bearer token has invalid value for key token-secret.',
    });
  });
});

describe('bootstrap token pieces', () => {
  it('parses only <6 lowercase alphanumerics>.<16 lowercase alphanumerics>', () => {
    expect(parseBootstrapToken('07401b.f395accd246ae52d')).toEqual({
      id: '07401b',
      secret: 'f395accd246ae52d',
    });
    expect(parseBootstrapToken('07401b.f395accd246ae52d.x')).toBeUndefined();
    expect(parseBootstrapToken('07401b-f395accd246ae52d')).toBeUndefined();
    expect(parseBootstrapToken('')).toBeUndefined();
  });

  it('validates extra groups with the pattern and message of cluster-bootstrap', () => {
    expect(bootstrapTokenGroups('')).toEqual(['system:bootstrappers']);
    expect(bootstrapTokenGroups(`system:bootstrappers:${'a'.repeat(256)}`)).toEqual([
      'system:bootstrappers',
      `system:bootstrappers:${'a'.repeat(256)}`,
    ]);
    expect(bootstrapTokenGroups(`system:bootstrappers:${'a'.repeat(257)}`)).toMatch(/is invalid/);
    expect(bootstrapTokenGroups('system:bootstrappers:Worker')).toBe(
      'bootstrap group "system:bootstrappers:Worker" is invalid (must match \\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\z)',
    );
  });

  it('reads expirations as Go reads RFC 3339, and treats garbage as expired', () => {
    expect(parseRfc3339('2025-06-01T12:00:00Z')).toBe(Date.parse('2025-06-01T12:00:00Z'));
    expect(parseRfc3339('2025-06-01T12:00:00.250-02:30')).toBe(Date.parse('2025-06-01T14:30:00.250Z'));
    expect(parseRfc3339('2024-02-29T00:00:00Z')).toBe(Date.parse('2024-02-29T00:00:00Z'));
    for (const bad of [
      '2025-02-29T00:00:00Z',
      '2025-06-01 12:00:00Z',
      '2025-06-01T12:00:00',
      '2025-06-01T24:00:00Z',
      '2025-13-01T00:00:00Z',
      '2025-06-01T12:00:60Z',
    ]) {
      expect(parseRfc3339(bad), bad).toBeUndefined();
    }
    expect(bootstrapTokenExpired('', NOW)).toBe(false);
    expect(bootstrapTokenExpired('2025-06-01T12:00:01Z', NOW)).toBe(false);
    expect(bootstrapTokenExpired('2025-06-01T12:00:00Z', NOW)).toBe(true);
    expect(bootstrapTokenExpired('not a time', NOW)).toBe(true);
  });
});
