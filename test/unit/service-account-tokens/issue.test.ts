import { createHash, createPublicKey, verify } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateEcdsaKeyPair, generateRsaKeyPair, type RsaKeyPair } from '../../../src/pki/keys.js';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER } from '../../../src/pki/service-account-claims.js';
import {
  EXTENDED_TOKEN_EXPIRATION_SECONDS,
  issueLegacyServiceAccountToken,
  issueServiceAccountToken,
  loadServiceAccountSigningKey,
  type ServiceAccountTokenRequest,
  TokenRequestInvalidError,
  validateTokenExpirationSeconds,
} from '../../../src/pki/service-account-tokens.js';

const ISSUER = DEFAULT_SERVICE_ACCOUNT_ISSUER;
const NOW = new Date('2025-01-01T00:00:00.750Z');
const NOW_SECONDS = 1735689600;
const SA_UID = '6e0b2d5a-0c0e-4a43-9a1a-2c8f3b2d9a01';
const POD_UID = 'a3c7d1f0-5b4e-4d2a-8f6e-1b9c0d2e3f40';
const NODE_UID = 'f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9';
const SECRET_UID = '0d1c2b3a-4958-4676-8594-a3b2c1d0e9f8';
const JTI = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

function segments(token: string): { header: string; payload: string; signature: Buffer } {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  return {
    header: Buffer.from(header, 'base64url').toString(),
    payload: Buffer.from(payload, 'base64url').toString(),
    signature: Buffer.from(signature, 'base64url'),
  };
}

function baseRequest(overrides: Partial<ServiceAccountTokenRequest> = {}): ServiceAccountTokenRequest {
  return {
    issuer: ISSUER,
    namespace: 'default',
    serviceAccount: { name: 'builder', uid: SA_UID },
    now: NOW,
    jti: JTI,
    ...overrides,
  };
}

describe('service-account token issuing', () => {
  let keys: RsaKeyPair;
  let keyId: string;

  beforeAll(async () => {
    keys = await generateRsaKeyPair();
    // Kubernetes' key ID: base64url (no padding) of SHA-256 over the DER SubjectPublicKeyInfo.
    const der = createPublicKey(keys.publicKeyPem).export({ type: 'spki', format: 'der' });
    keyId = createHash('sha256').update(der).digest('base64url');
  });

  it('signs RS256 with header {alg, kid} exactly as go-jose writes it', () => {
    const { token } = issueServiceAccountToken(keys, baseRequest());
    const parts = segments(token);
    expect(parts.header).toBe(`{"alg":"RS256","kid":"${keyId}"}`);
    expect(keyId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const signingInput = token.slice(0, token.lastIndexOf('.'));
    expect(
      verify('sha256', Buffer.from(signingInput), createPublicKey(keys.publicKeyPem), parts.signature),
    ).toBe(true);
    expect(loadServiceAccountSigningKey(keys.privateKeyPem).keyId).toBe(keyId);
  });

  it('signs ES256 with an ECDSA P-256 key: a 64-byte r‖s signature, as go-jose writes it', async () => {
    const ecKeys = await generateEcdsaKeyPair();
    const { token } = issueServiceAccountToken(ecKeys, baseRequest());
    const parts = segments(token);
    const ecKeyId = loadServiceAccountSigningKey(ecKeys.privateKeyPem).keyId;
    expect(parts.header).toBe(`{"alg":"ES256","kid":"${ecKeyId}"}`);
    expect(parts.signature).toHaveLength(64);
    const signingInput = Buffer.from(token.slice(0, token.lastIndexOf('.')));
    const publicKey = { key: createPublicKey(ecKeys.publicKeyPem), dsaEncoding: 'ieee-p1363' as const };
    expect(verify('sha256', signingInput, publicKey, parts.signature)).toBe(true);
  });

  it('writes the pod-bound claim set byte for byte as Kubernetes does (sorted keys, node of the pod)', () => {
    const issued = issueServiceAccountToken(
      keys,
      baseRequest({
        audiences: ['vault'],
        expirationSeconds: 7200,
        boundObject: { kind: 'Pod', name: 'web-0', uid: POD_UID, nodeName: 'node-1', nodeUid: NODE_UID },
      }),
    );
    expect(segments(issued.token).payload).toBe(
      '{"aud":["vault"],"exp":1735696800,"iat":1735689600,' +
        '"iss":"https://kubernetes.default.svc.cluster.local",' +
        '"jti":"7c9e6679-7425-40de-944b-e07fc1f90ae7",' +
        '"kubernetes.io":{"namespace":"default",' +
        `"node":{"name":"node-1","uid":"${NODE_UID}"},` +
        `"pod":{"name":"web-0","uid":"${POD_UID}"},` +
        `"serviceaccount":{"name":"builder","uid":"${SA_UID}"}},` +
        '"nbf":1735689600,"sub":"system:serviceaccount:default:builder"}',
    );
    expect(issued.expirationTimestamp).toBe('2025-01-01T02:00:00Z');
    expect(issued.expirationSeconds).toBe(7200);
    expect(issued.audiences).toEqual(['vault']);
    expect(issued.credentialId).toBe(`JTI=${JTI}`);
    expect(issued.warnings).toEqual([]);
  });

  it('writes the secret-bound claim set, defaulting audiences to the apiserver and lifetime to an hour', () => {
    const issued = issueServiceAccountToken(
      keys,
      baseRequest({ boundObject: { kind: 'Secret', name: 'builder-token', uid: SECRET_UID } }),
    );
    expect(JSON.parse(segments(issued.token).payload)).toEqual({
      aud: [ISSUER],
      exp: NOW_SECONDS + 3600,
      iat: NOW_SECONDS,
      iss: ISSUER,
      jti: JTI,
      'kubernetes.io': {
        namespace: 'default',
        secret: { name: 'builder-token', uid: SECRET_UID },
        serviceaccount: { name: 'builder', uid: SA_UID },
      },
      nbf: NOW_SECONDS,
      sub: 'system:serviceaccount:default:builder',
    });
    expect(issued.expirationTimestamp).toBe('2025-01-01T01:00:00Z');
    expect(issued.audiences).toEqual([ISSUER]);
  });

  it('binds to a Node, and to a pod whose node has no object (name only)', () => {
    const nodeBound = issueServiceAccountToken(
      keys,
      baseRequest({ boundObject: { kind: 'Node', name: 'node-1', uid: NODE_UID } }),
    );
    expect(JSON.parse(segments(nodeBound.token).payload)['kubernetes.io']).toEqual({
      namespace: 'default',
      node: { name: 'node-1', uid: NODE_UID },
      serviceaccount: { name: 'builder', uid: SA_UID },
    });
    const podOnMissingNode = issueServiceAccountToken(
      keys,
      baseRequest({ boundObject: { kind: 'Pod', name: 'web-0', uid: POD_UID, nodeName: 'gone' } }),
    );
    expect(JSON.parse(segments(podOnMissingNode.token).payload)['kubernetes.io'].node).toEqual({
      name: 'gone',
    });
  });

  it('gives each token a fresh UUID jti unless one is fixed', () => {
    const first = issueServiceAccountToken(keys, baseRequest({ jti: undefined }));
    const second = issueServiceAccountToken(keys, baseRequest({ jti: undefined }));
    expect(first.claims.jti).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first.claims.jti).not.toBe(second.claims.jti);
  });

  it('refuses lifetimes under 10 minutes or over 2^32 seconds with the TokenRequest validation text', () => {
    expect(() => issueServiceAccountToken(keys, baseRequest({ expirationSeconds: 60 }))).toThrow(
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: ' +
        'may not specify a duration less than 10 minutes',
    );
    try {
      issueServiceAccountToken(keys, baseRequest({ expirationSeconds: 2 ** 32 + 1 }));
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(TokenRequestInvalidError);
      expect((error as TokenRequestInvalidError).errors).toEqual([
        {
          type: 'FieldValueInvalid',
          field: 'spec.expirationSeconds',
          badValue: 2 ** 32 + 1,
          detail: 'may not specify a duration larger than 2^32 seconds',
        },
      ]);
    }
    expect(validateTokenExpirationSeconds(600)).toEqual([]);
    expect(
      validateTokenExpirationSeconds(
        599,
        'spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds',
      )[0]?.field,
    ).toBe('spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds');
  });

  it('shortens a lifetime beyond the configured maximum, with the warning Kubernetes sends', () => {
    const issued = issueServiceAccountToken(
      keys,
      baseRequest({ expirationSeconds: 86400, maxExpirationSeconds: 7200 }),
    );
    expect(issued.expirationSeconds).toBe(7200);
    expect(issued.claims.exp).toBe(NOW_SECONDS + 7200);
    expect(issued.expirationTimestamp).toBe('2025-01-01T02:00:00Z');
    expect(issued.warnings).toEqual(['requested expiration of 86400 seconds shortened to 7200 seconds']);
  });

  it("extends the kubelet's 3607 s pod-bound apiserver tokens to a year with warnafter, status unchanged", () => {
    const pod = { kind: 'Pod' as const, name: 'web-0', uid: POD_UID };
    const extended = issueServiceAccountToken(
      keys,
      baseRequest({ expirationSeconds: 3607, boundObject: pod }),
    );
    expect(extended.claims.exp).toBe(NOW_SECONDS + EXTENDED_TOKEN_EXPIRATION_SECONDS);
    expect(extended.claims['kubernetes.io']?.warnafter).toBe(NOW_SECONDS + 3607);
    expect(extended.expirationTimestamp).toBe('2025-01-01T01:00:07Z');
    expect(segments(extended.token).payload).toContain(`"warnafter":${NOW_SECONDS + 3607}}`);

    // Not for other audiences, other lifetimes, tokens without a pod, or when switched off.
    for (const request of [
      baseRequest({ expirationSeconds: 3607, boundObject: pod, audiences: ['vault'] }),
      baseRequest({ expirationSeconds: 3608, boundObject: pod }),
      baseRequest({ expirationSeconds: 3607 }),
      baseRequest({ expirationSeconds: 3607, boundObject: pod, extendExpiration: false }),
    ]) {
      const plain = issueServiceAccountToken(keys, request);
      expect(plain.claims.exp).toBe(NOW_SECONDS + (request.expirationSeconds ?? 0));
      expect(plain.claims['kubernetes.io']?.warnafter).toBeUndefined();
    }
  });

  it('writes legacy Secret tokens with the kubernetes/serviceaccount issuer and flat claims', () => {
    const token = issueLegacyServiceAccountToken(keys, {
      namespace: 'kube-system',
      serviceAccount: { name: 'builder', uid: SA_UID },
      secretName: 'builder-token-x7k2p',
    });
    const parts = segments(token);
    expect(parts.header).toBe(`{"alg":"RS256","kid":"${keyId}"}`);
    expect(parts.payload).toBe(
      '{"iss":"kubernetes/serviceaccount",' +
        '"kubernetes.io/serviceaccount/namespace":"kube-system",' +
        '"kubernetes.io/serviceaccount/secret.name":"builder-token-x7k2p",' +
        '"kubernetes.io/serviceaccount/service-account.name":"builder",' +
        `"kubernetes.io/serviceaccount/service-account.uid":"${SA_UID}",` +
        '"sub":"system:serviceaccount:kube-system:builder"}',
    );
  });
});
