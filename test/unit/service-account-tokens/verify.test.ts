import { createPrivateKey, sign } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateEcdsaKeyPair, generateRsaKeyPair, type RsaKeyPair } from '../../../src/pki/keys.js';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER } from '../../../src/pki/service-account-claims.js';
import {
  type ServiceAccountTokenVerification,
  type TokenBinding,
  type VerifyServiceAccountTokenOptions,
  verifyServiceAccountToken,
} from '../../../src/pki/service-account-token-verifier.js';
import {
  issueLegacyServiceAccountToken,
  issueServiceAccountToken,
  type ServiceAccountTokenRequest,
} from '../../../src/pki/service-account-tokens.js';

const ISSUER = DEFAULT_SERVICE_ACCOUNT_ISSUER;
const ISSUED_AT = new Date('2025-03-01T12:00:00Z');
const SA_UID = '11111111-2222-4333-8444-555555555555';
const POD_UID = '66666666-7777-4888-9999-aaaaaaaaaaaa';
const NODE_UID = 'bbbbbbbb-cccc-4ddd-8eee-ffffffffffff';
const JTI = '0f8fad5b-d9cb-469f-a165-70867728950e';

function at(offsetSeconds: number): Date {
  return new Date(ISSUED_AT.getTime() + offsetSeconds * 1000);
}

function failure(result: ServiceAccountTokenVerification): { reason: string; message: string } {
  if (result.ok) throw new Error('expected the token to be refused');
  return { reason: result.reason, message: result.message };
}

function encodeSegment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('service-account token verification', () => {
  let keys: RsaKeyPair;
  let otherKeys: RsaKeyPair;
  let options: VerifyServiceAccountTokenOptions;

  const issue = (overrides: Partial<ServiceAccountTokenRequest> = {}) =>
    issueServiceAccountToken(keys, {
      issuer: ISSUER,
      namespace: 'apps',
      serviceAccount: { name: 'web', uid: SA_UID },
      boundObject: { kind: 'Pod', name: 'web-7d4b9', uid: POD_UID, nodeName: 'node-2', nodeUid: NODE_UID },
      now: ISSUED_AT,
      jti: JTI,
      ...overrides,
    }).token;

  beforeAll(async () => {
    [keys, otherKeys] = await Promise.all([generateRsaKeyPair(), generateRsaKeyPair()]);
    options = { publicKeys: [keys.publicKeyPem], issuers: [ISSUER], audiences: [ISSUER], now: at(30) };
  });

  it('round-trips a pod-bound token into the service account user Kubernetes builds', async () => {
    const result = await verifyServiceAccountToken(issue(), options);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.kind).toBe('bound');
    expect(result.audiences).toEqual([ISSUER]);
    expect(result.user).toEqual({
      name: 'system:serviceaccount:apps:web',
      uid: SA_UID,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:apps'],
      extra: {
        'authentication.kubernetes.io/pod-name': ['web-7d4b9'],
        'authentication.kubernetes.io/pod-uid': [POD_UID],
        'authentication.kubernetes.io/credential-id': [`JTI=${JTI}`],
        'authentication.kubernetes.io/node-name': ['node-2'],
        'authentication.kubernetes.io/node-uid': [NODE_UID],
      },
    });
    expect(result.auditAnnotations).toEqual({});
  });

  it('hands the caller exactly what to look up, and refuses with the reason it returns', async () => {
    const seen: TokenBinding[] = [];
    const token = issue();
    const accepted = await verifyServiceAccountToken(token, {
      ...options,
      validateBinding: async (binding) => {
        seen.push(binding);
        return undefined;
      },
    });
    expect(accepted.ok).toBe(true);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      kind: 'bound',
      token,
      namespace: 'apps',
      serviceAccount: { name: 'web', uid: SA_UID },
      pod: { name: 'web-7d4b9', uid: POD_UID },
      node: { name: 'node-2', uid: NODE_UID },
    });
    expect(seen[0]?.secret).toBeUndefined();

    const refused = await verifyServiceAccountToken(token, {
      ...options,
      validateBinding: async () => 'service account token has been invalidated',
    });
    expect(failure(refused)).toEqual({
      reason: 'binding',
      message: 'service account token has been invalidated',
    });
  });

  it('accepts within the 60 s leeway and refuses expired and not-yet-valid tokens', async () => {
    const token = issue({ expirationSeconds: 600 });
    expect((await verifyServiceAccountToken(token, { ...options, now: at(660) })).ok).toBe(true);
    expect(failure(await verifyServiceAccountToken(token, { ...options, now: at(661) }))).toEqual({
      reason: 'expired',
      message: 'service account token has expired',
    });
    expect((await verifyServiceAccountToken(token, { ...options, now: at(-60) })).ok).toBe(true);
    expect(failure(await verifyServiceAccountToken(token, { ...options, now: at(-61) }))).toEqual({
      reason: 'not-yet-valid',
      message: 'service account token is not valid yet',
    });
  });

  it('refuses a token for another audience with the Kubernetes message, and honours requested audiences', async () => {
    const vaultToken = issue({ audiences: ['vault'] });
    expect(failure(await verifyServiceAccountToken(vaultToken, options))).toEqual({
      reason: 'audience',
      message: `token audiences ["vault"] is invalid for the target audiences ["${ISSUER}"]`,
    });
    const forVault = await verifyServiceAccountToken(vaultToken, {
      ...options,
      requestedAudiences: ['vault', 'x'],
    });
    expect(forVault.ok && forVault.audiences).toEqual(['vault']);
  });

  it('refuses a token from another issuer before looking at its signature', async () => {
    const foreign = issueServiceAccountToken(otherKeys, {
      issuer: 'https://elsewhere.example',
      namespace: 'apps',
      serviceAccount: { name: 'web', uid: SA_UID },
      now: ISSUED_AT,
    }).token;
    expect(failure(await verifyServiceAccountToken(foreign, options))).toEqual({
      reason: 'issuer',
      message: 'token issuer "https://elsewhere.example" is invalid',
    });
  });

  it('refuses tampered payloads and signatures, and tokens signed by another key', async () => {
    const token = issue();
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    claims['kubernetes.io'].serviceaccount.name = 'admin';
    const tamperedPayload = `${header}.${encodeSegment(claims)}.${signature}`;
    expect(failure(await verifyServiceAccountToken(tamperedPayload, options))).toEqual({
      reason: 'signature',
      message: 'go-jose/go-jose: error in cryptographic primitive',
    });
    const flipped = Buffer.from(signature, 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    const tamperedSignature = `${header}.${payload}.${flipped.toString('base64url')}`;
    expect(failure(await verifyServiceAccountToken(tamperedSignature, options)).reason).toBe('signature');

    // Another key has another kid: no key matches it at all.
    const otherKeyToken = issueServiceAccountToken(otherKeys, {
      issuer: ISSUER,
      namespace: 'apps',
      serviceAccount: { name: 'web', uid: SA_UID },
      now: ISSUED_AT,
    }).token;
    expect(failure(await verifyServiceAccountToken(otherKeyToken, options))).toEqual({
      reason: 'signature',
      message: 'invalid signature, no keys found',
    });
    // Without a kid every key is tried, and none verifies it.
    const noKid = `${encodeSegment({ alg: 'RS256' })}.${otherKeyToken.split('.')[1]}`;
    const signed = sign('sha256', Buffer.from(noKid), createPrivateKey(otherKeys.privateKeyPem));
    expect(
      failure(await verifyServiceAccountToken(`${noKid}.${signed.toString('base64url')}`, options)).reason,
    ).toBe('signature');
    // ... while a rotated key set that still holds the old key verifies it.
    const rotated = { ...options, publicKeys: [otherKeys.publicKeyPem, keys.publicKeyPem] };
    expect((await verifyServiceAccountToken(`${noKid}.${signed.toString('base64url')}`, rotated)).ok).toBe(
      true,
    );
  });

  it('verifies ES256 tokens of an ECDSA key beside RS256 ones, each only with its own algorithm', async () => {
    const ecKeys = await generateEcdsaKeyPair();
    const mixed = { ...options, publicKeys: [keys.publicKeyPem, ecKeys.publicKeyPem] };
    const ecToken = issueServiceAccountToken(ecKeys, {
      issuer: ISSUER,
      namespace: 'apps',
      serviceAccount: { name: 'web', uid: SA_UID },
      now: ISSUED_AT,
    }).token;
    const [header, payload] = ecToken.split('.') as [string, string];
    expect(JSON.parse(Buffer.from(header, 'base64url').toString()).alg).toBe('ES256');
    expect((await verifyServiceAccountToken(ecToken, mixed)).ok).toBe(true);
    expect((await verifyServiceAccountToken(issue(), mixed)).ok).toBe(true);
    // The same ECDSA signature under another algorithm's name, or DER-encoded instead of r‖s.
    const kid = JSON.parse(Buffer.from(header, 'base64url').toString()).kid;
    const relabelled = `${encodeSegment({ alg: 'RS256', kid })}.${payload}`;
    const ecPrivate = createPrivateKey(ecKeys.privateKeyPem);
    const raw = sign('sha256', Buffer.from(relabelled), { key: ecPrivate, dsaEncoding: 'ieee-p1363' });
    expect(
      failure(await verifyServiceAccountToken(`${relabelled}.${raw.toString('base64url')}`, mixed)).reason,
    ).toBe('signature');
    const der = sign('sha256', Buffer.from(`${header}.${payload}`), ecPrivate);
    expect(
      failure(await verifyServiceAccountToken(`${header}.${payload}.${der.toString('base64url')}`, mixed))
        .reason,
    ).toBe('signature');
  });

  it('refuses an unsigned (alg none) token even with a matching issuer', async () => {
    const token = issue();
    const payload = token.split('.')[1];
    const unsigned = `${encodeSegment({ alg: 'none' })}.${payload}.`;
    expect(failure(await verifyServiceAccountToken(unsigned, options)).reason).toBe('signature');
  });

  it('refuses malformed tokens', async () => {
    const token = issue();
    const [header, , signature] = token.split('.') as [string, string, string];
    for (const bad of [
      '',
      'not-a-jwt',
      'a.b',
      `${token}.extra`,
      '{"alg":"RS256"}',
      `${header}.%%%.${signature}`,
      `${header}.${Buffer.from('not json').toString('base64url')}.${signature}`,
      `${header}.${encodeSegment(['array'])}.${signature}`,
    ]) {
      expect(failure(await verifyServiceAccountToken(bad, options)).reason, bad).toBe('malformed');
    }
  });

  it('verifies legacy Secret tokens without expiry, for the apiserver audiences only', async () => {
    const token = issueLegacyServiceAccountToken(keys, {
      namespace: 'apps',
      serviceAccount: { name: 'web', uid: SA_UID },
      secretName: 'web-token-abcde',
    });
    const seen: TokenBinding[] = [];
    const result = await verifyServiceAccountToken(token, {
      ...options,
      now: new Date('2035-01-01T00:00:00Z'),
      validateBinding: async (binding) => {
        seen.push(binding);
        return undefined;
      },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.kind).toBe('legacy');
    expect(result.user).toEqual({
      name: 'system:serviceaccount:apps:web',
      uid: SA_UID,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:apps'],
    });
    expect(result.audiences).toEqual([ISSUER]);
    expect(result.auditAnnotations).toEqual({
      'authentication.k8s.io/legacy-token': 'system:serviceaccount:apps:web',
    });
    expect(seen[0]).toMatchObject({ kind: 'legacy', token, secret: { name: 'web-token-abcde' } });

    expect(
      failure(await verifyServiceAccountToken(token, { ...options, requestedAudiences: ['vault'] })).reason,
    ).toBe('audience');
    expect(failure(await verifyServiceAccountToken(token, { ...options, acceptLegacy: false })).reason).toBe(
      'issuer',
    );
  });

  it('refuses legacy tokens missing their claims or naming another subject', async () => {
    const forge = (claims: Record<string, unknown>) => {
      const input = `${encodeSegment({ alg: 'RS256' })}.${encodeSegment(claims)}`;
      const signature = sign('sha256', Buffer.from(input), createPrivateKey(keys.privateKeyPem));
      return `${input}.${signature.toString('base64url')}`;
    };
    const complete = {
      iss: 'kubernetes/serviceaccount',
      sub: 'system:serviceaccount:apps:web',
      'kubernetes.io/serviceaccount/namespace': 'apps',
      'kubernetes.io/serviceaccount/secret.name': 'web-token-abcde',
      'kubernetes.io/serviceaccount/service-account.name': 'web',
      'kubernetes.io/serviceaccount/service-account.uid': SA_UID,
    };
    expect((await verifyServiceAccountToken(forge(complete), options)).ok).toBe(true);
    expect(failure(await verifyServiceAccountToken(forge({ ...complete, sub: undefined }), options))).toEqual(
      {
        reason: 'invalid-claims',
        message: 'sub claim is missing',
      },
    );
    const noSecret = { ...complete, 'kubernetes.io/serviceaccount/secret.name': '' };
    expect(failure(await verifyServiceAccountToken(forge(noSecret), options)).message).toBe(
      'secretName claim is missing',
    );
    const otherSubject = { ...complete, sub: 'system:serviceaccount:apps:admin' };
    expect(failure(await verifyServiceAccountToken(forge(otherSubject), options)).message).toBe(
      'sub claim is invalid',
    );
  });

  it('reports stale extended tokens for the audit log', async () => {
    const token = issue({ expirationSeconds: 3607 });
    const result = await verifyServiceAccountToken(token, { ...options, now: at(3607 + 100) });
    expect(result.ok && result.auditAnnotations).toEqual({
      'authentication.k8s.io/stale-token':
        'subject: system:serviceaccount:apps:web, seconds after warning threshold: 100',
    });
  });
});
