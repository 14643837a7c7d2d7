import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { Authenticator } from '../../../src/apiserver/auth/authenticator.js';
import type { ApiRequest } from '../../../src/apiserver/http/types.js';
import { StatusError } from '../../../src/apiserver/status.js';

const TOKEN = 'abc123.0123456789abcdef';
const b64 = (text: string) => Buffer.from(text).toString('base64');

function bootstrapSecret(data: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'bootstrap-token-abc123', namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  };
}

const validData = {
  'token-id': 'abc123',
  'token-secret': '0123456789abcdef',
  'usage-bootstrap-authentication': 'true',
  'auth-extra-groups': 'system:bootstrappers:worker',
};

const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

/** An authenticator whose kube-system Secrets are `secrets`, counting the lookups it makes. */
function authenticatorWith(
  secrets: Map<string, KubeObject>,
  audiences: readonly string[] = ['https://kubernetes.default.svc'],
) {
  let lookups = 0;
  const missing = async () => undefined;
  const authenticator = new Authenticator(
    {
      publicKeys: [publicKey.export({ type: 'spki', format: 'pem' }).toString()],
      issuer: 'https://kubernetes.default.svc',
      audiences,
      lookup: { getServiceAccount: missing, getPod: missing, getSecret: missing, getNode: missing },
    },
    async (name) => {
      lookups++;
      return secrets.get(name);
    },
  );
  return { authenticator, lookups: () => lookups };
}

const bearer = (token: string) =>
  ({ headers: { authorization: `Bearer ${token}` } }) as unknown as ApiRequest;

describe('Authenticator with bootstrap tokens', () => {
  it('authenticates a bootstrap token with system:authenticated added, and caches the verdict', async () => {
    const secrets = new Map([['bootstrap-token-abc123', bootstrapSecret(validData)]]);
    const { authenticator, lookups } = authenticatorWith(secrets);
    const user = await authenticator.authenticate(bearer(TOKEN));
    expect(user).toEqual({
      name: 'system:bootstrap:abc123',
      uid: undefined,
      groups: ['system:bootstrappers', 'system:bootstrappers:worker', 'system:authenticated'],
      extra: undefined,
    });
    await authenticator.authenticate(bearer(TOKEN));
    expect(lookups()).toBe(1);
  });

  it('answers 401 for a bootstrap-form token that does not authenticate, never anonymous', async () => {
    const secrets = new Map([
      ['bootstrap-token-abc123', bootstrapSecret({ ...validData, expiration: '2000-01-01T00:00:00Z' })],
    ]);
    const { authenticator } = authenticatorWith(secrets);
    const failure = await authenticator.authenticate(bearer(TOKEN)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StatusError);
    expect((failure as StatusError).code).toBe(401);
    const unknown = await authenticator
      .authenticate(bearer('zzz999.0123456789abcdef'))
      .catch((e: unknown) => e);
    expect((unknown as StatusError).code).toBe(401);
  });

  it('reports bootstrap tokens in TokenReview verdicts, with the API audiences', async () => {
    const secrets = new Map([['bootstrap-token-abc123', bootstrapSecret(validData)]]);
    const { authenticator } = authenticatorWith(secrets, ['api', 'kubernetes']);
    expect(await authenticator.verifyToken(TOKEN)).toEqual({
      ok: true,
      user: {
        name: 'system:bootstrap:abc123',
        groups: ['system:bootstrappers', 'system:bootstrappers:worker'],
      },
      audiences: ['api', 'kubernetes'],
    });
    expect(await authenticator.verifyToken(TOKEN, ['kubernetes', 'vault'])).toMatchObject({
      ok: true,
      audiences: ['kubernetes'],
    });
    // Bootstrap tokens are audience-agnostic: good for the apiserver's audiences only.
    expect(await authenticator.verifyToken(TOKEN, ['vault'])).toEqual({
      ok: false,
      message: 'invalid bearer token',
    });
  });

  it('says "invalid bearer token" for a token no authenticator accepts', async () => {
    const { authenticator } = authenticatorWith(new Map());
    expect(await authenticator.verifyToken(TOKEN)).toEqual({ ok: false, message: 'invalid bearer token' });
    expect(await authenticator.verifyToken('garbage')).toEqual({
      ok: false,
      message: 'invalid bearer token',
    });
  });

  it('does not accept bootstrap tokens when no Secret lookup is configured', async () => {
    const authenticator = new Authenticator();
    expect((await authenticator.verifyToken(TOKEN)).ok).toBe(false);
  });
});
