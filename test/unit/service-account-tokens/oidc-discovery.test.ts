import { createHash, createPublicKey, generateKeyPairSync, type JsonWebKey, verify } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  JWKS_PATH,
  jsonWebKeySet,
  OidcDiscoveryConfigError,
  oidcDiscoveryDocuments,
  openIdConfiguration,
} from '../../../src/apiserver/auth/oidc-discovery.js';
import { generateEcdsaKeyPair, generateRsaKeyPair, type RsaKeyPair } from '../../../src/pki/keys.js';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER } from '../../../src/pki/service-account-claims.js';
import { issueServiceAccountToken } from '../../../src/pki/service-account-tokens.js';

const ISSUER = DEFAULT_SERVICE_ACCOUNT_ISSUER;

describe('service-account issuer discovery', () => {
  let keys: RsaKeyPair;
  let otherKeys: RsaKeyPair;

  beforeAll(async () => {
    [keys, otherKeys] = await Promise.all([generateRsaKeyPair(), generateRsaKeyPair()]);
  });

  it('renders the openid-configuration with the fields and order kube-apiserver serves', () => {
    const documents = oidcDiscoveryDocuments({
      issuer: ISSUER,
      externalAddress: '172.18.0.2:6443',
      keys: [keys.publicKeyPem],
    });
    expect(documents.configuration).toBe(
      '{"issuer":"https://kubernetes.default.svc.cluster.local",' +
        '"jwks_uri":"https://172.18.0.2:6443/openid/v1/jwks",' +
        '"response_types_supported":["id_token"],' +
        '"subject_types_supported":["public"],' +
        '"id_token_signing_alg_values_supported":["RS256"]}',
    );
    const explicit = openIdConfiguration({
      issuer: ISSUER,
      jwksUri: 'https://oidc.example/keys',
      keys: [keys.publicKeyPem],
    });
    expect(explicit.jwks_uri).toBe('https://oidc.example/keys');
  });

  it('renders each key as {use, kty, kid, alg, n, e} in go-jose order', () => {
    const { keySet } = oidcDiscoveryDocuments({
      issuer: ISSUER,
      externalAddress: 'localhost:6443',
      keys: [keys.publicKeyPem],
    });
    const publicKey = createPublicKey(keys.publicKeyPem);
    const kid = createHash('sha256')
      .update(publicKey.export({ type: 'spki', format: 'der' }))
      .digest('base64url');
    const { n, e } = publicKey.export({ format: 'jwk' });
    expect(keySet).toBe(
      `{"keys":[{"use":"sig","kty":"RSA","kid":"${kid}","alg":"RS256","n":"${n}","e":"${e}"}]}`,
    );
    expect(e).toBe('AQAB');
  });

  it('publishes keys that verify issued tokens through node:crypto, picked by kid', () => {
    const { token } = issueServiceAccountToken(keys, {
      issuer: ISSUER,
      namespace: 'default',
      serviceAccount: { name: 'default', uid: 'uid-1' },
    });
    // A private key file publishes only its public half.
    const set = jsonWebKeySet([otherKeys.publicKeyPem, keys.privateKeyPem]);
    expect(JSON.stringify(set)).not.toMatch(/"d"|PRIVATE/);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const { kid } = JSON.parse(Buffer.from(header, 'base64url').toString());
    const jwk = set.keys.find((key) => key.kid === kid);
    expect(jwk).toBeDefined();
    const publicKey = createPublicKey({ key: jwk as unknown as JsonWebKey, format: 'jwk' });
    const input = Buffer.from(`${header}.${payload}`);
    expect(verify('sha256', input, publicKey, Buffer.from(signature, 'base64url'))).toBe(true);
    const other = set.keys.find((key) => key.kid !== kid)!;
    const otherKey = createPublicKey({ key: other as unknown as JsonWebKey, format: 'jwk' });
    expect(verify('sha256', input, otherKey, Buffer.from(signature, 'base64url'))).toBe(false);
  });

  it('renders an ECDSA key as {use, kty, kid, crv, alg, x, y} in go-jose order, ES256 beside RS256', async () => {
    const ecKeys = await generateEcdsaKeyPair();
    const documents = oidcDiscoveryDocuments({
      issuer: ISSUER,
      externalAddress: 'localhost:6443',
      keys: [ecKeys.publicKeyPem, keys.publicKeyPem],
    });
    const publicKey = createPublicKey(ecKeys.publicKeyPem);
    const kid = createHash('sha256')
      .update(publicKey.export({ type: 'spki', format: 'der' }))
      .digest('base64url');
    const { x, y } = publicKey.export({ format: 'jwk' });
    // P-256 coordinates are 32 bytes each, leading zeros kept (RFC 7518 §6.2.1.2).
    expect(Buffer.from(String(x), 'base64url')).toHaveLength(32);
    expect(documents.keySet).toMatch(
      new RegExp(
        `^\\{"keys":\\[\\{"use":"sig","kty":"EC","kid":"${kid}","crv":"P-256","alg":"ES256","x":"${x}","y":"${y}"\\},\\{"use":"sig","kty":"RSA",`,
      ),
    );
    expect(JSON.parse(documents.configuration).id_token_signing_alg_values_supported).toEqual([
      'ES256',
      'RS256',
    ]);
    const { token } = issueServiceAccountToken(ecKeys, {
      issuer: ISSUER,
      namespace: 'default',
      serviceAccount: { name: 'default', uid: 'uid-1' },
    });
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const jwk = jsonWebKeySet([ecKeys.publicKeyPem]).keys[0];
    const published = createPublicKey({ key: jwk as unknown as JsonWebKey, format: 'jwk' });
    const signed = { key: published, dsaEncoding: 'ieee-p1363' as const };
    expect(
      verify('sha256', Buffer.from(`${header}.${payload}`), signed, Buffer.from(signature, 'base64url')),
    ).toBe(true);
  });

  it('refuses a key type no token is signed with', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    expect(() => jsonWebKeySet([publicKey])).toThrow(
      'unsupported service-account key type ed25519: tokens are signed with RSA or ECDSA keys',
    );
  });

  it('refuses configurations kube-apiserver would not serve, with its messages', () => {
    const base = { externalAddress: 'localhost:6443', keys: [keys.publicKeyPem] };
    const cases: [Parameters<typeof openIdConfiguration>[0], string][] = [
      [{ ...base, issuer: '' }, 'empty issuer URL'],
      [
        { ...base, issuer: 'kubernetes.default.svc' },
        'issuer URL must use https scheme, got: kubernetes.default.svc',
      ],
      [
        { ...base, issuer: 'http://issuer.example' },
        'issuer URL must use https scheme, got: http://issuer.example',
      ],
      [
        { ...base, issuer: 'https://issuer.example?a=b' },
        'issuer URL may not include a query, got: https://issuer.example?a=b',
      ],
      [
        { ...base, issuer: 'https://issuer.example#x' },
        'issuer URL may not include a fragment, got: https://issuer.example#x',
      ],
      [
        { issuer: ISSUER, keys: base.keys },
        'either the JWKS URI or the default external address, or both, must be set',
      ],
      [
        { ...base, issuer: ISSUER, jwksUri: 'http://plain/keys' },
        'jwksURI requires https scheme, parsed as: http://plain/keys',
      ],
      [{ ...base, issuer: ISSUER, keys: [] }, 'no keys provided for validating keyset'],
    ];
    for (const [options, message] of cases) {
      expect(() => openIdConfiguration(options)).toThrow(OidcDiscoveryConfigError);
      expect(() => openIdConfiguration(options)).toThrow(message);
    }
    expect(JWKS_PATH).toBe('/openid/v1/jwks');
  });
});
