// Service-account tokens end to end with real kubectl: TokenRequest, bearer authentication,
// whoami, TokenReview, invalidation with the service account, OIDC discovery.
import { createPublicKey, createVerify } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;
let tokenOnly: (token: string, args: string[]) => ReturnType<TestCluster['kubectl']>;

beforeAll(async () => {
  cluster = await startTestCluster('tokens');
  const view = async (path: string) =>
    (await cluster.kubectl(['config', 'view', '--raw', '-o', `jsonpath=${path}`])).stdout;
  const server = await view('{.clusters[0].cluster.server}');
  const caFile = join(mkdtempSync(join(tmpdir(), 'tkube-tokens-')), 'ca.crt');
  writeFileSync(
    caFile,
    Buffer.from(await view('{.clusters[0].cluster.certificate-authority-data}'), 'base64'),
  );
  // A client with nothing but the token: no kubeconfig, no client certificate.
  tokenOnly = (token, args) =>
    cluster.kubectl([
      '--kubeconfig=/dev/null',
      `--server=${server}`,
      `--certificate-authority=${caFile}`,
      `--token=${token}`,
      ...args,
    ]);
}, 60_000);

afterAll(async () => {
  await cluster?.down();
});

describe('service-account tokens', () => {
  it('issues a token with kubectl create token and authenticates with it', async () => {
    expect((await cluster.kubectl(['create', 'serviceaccount', 'robot'])).stdout).toBe(
      'serviceaccount/robot created',
    );
    const token = (await cluster.kubectl(['create', 'token', 'robot'])).stdout;
    expect(token.split('.')).toHaveLength(3);
    const whoami = await tokenOnly(token, ['auth', 'whoami', '-o', 'json']);
    expect(whoami.exitCode, whoami.stderr).toBe(0);
    const review = JSON.parse(whoami.stdout) as {
      status: { userInfo: { username: string; groups: string[] } };
    };
    expect(review.status.userInfo.username).toBe('system:serviceaccount:default:robot');
    expect(review.status.userInfo.groups).toEqual([
      'system:serviceaccounts',
      'system:serviceaccounts:default',
      'system:authenticated',
    ]);
    const admin = await cluster.kubectl(['auth', 'whoami', '-o', 'json']);
    expect(JSON.parse(admin.stdout).status.userInfo).toEqual({
      username: 'kubernetes-admin',
      groups: ['system:masters', 'system:authenticated'],
    });
  });

  it('rejects a token that is garbage, too short-lived, or whose account is gone or replaced', async () => {
    expect((await tokenOnly('not.a.token', ['auth', 'whoami'])).stderr).toBe(
      'error: You must be logged in to the server (Unauthorized)',
    );
    const short = await cluster.kubectl(['create', 'token', 'robot', '--duration=1m']);
    expect(short.stderr).toContain(
      'spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    );
    const token = (await cluster.kubectl(['create', 'token', 'robot'])).stdout;
    expect((await tokenOnly(token, ['auth', 'whoami'])).exitCode).toBe(0);
    await cluster.kubectl(['delete', 'serviceaccount', 'robot']);
    // Verified tokens are cached for 2 s, as kube-apiserver caches them (for 10 s).
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect((await tokenOnly(token, ['auth', 'whoami'])).stderr).toContain('Unauthorized');
    // A new account of the same name has another uid: the old token stays invalid.
    await cluster.kubectl(['create', 'serviceaccount', 'robot']);
    expect((await tokenOnly(token, ['auth', 'whoami'])).stderr).toContain('Unauthorized');
  });

  it('answers TokenReviews and publishes keys that verify the tokens', async () => {
    const token = (await cluster.kubectl(['create', 'token', 'robot', '--audience=vault'])).stdout;
    const review = await cluster.kubectl(
      ['create', '--raw', '/apis/authentication.k8s.io/v1/tokenreviews', '-f', '-'],
      {
        input: JSON.stringify({
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token, audiences: ['vault'] },
        }),
      },
    );
    const status = (
      JSON.parse(review.stdout) as {
        status: { authenticated: boolean; user: { username: string }; audiences: string[] };
      }
    ).status;
    expect(status).toMatchObject({
      authenticated: true,
      user: { username: 'system:serviceaccount:default:robot' },
      audiences: ['vault'],
    });
    const wrongAudience = await cluster.kubectl(
      ['create', '--raw', '/apis/authentication.k8s.io/v1/tokenreviews', '-f', '-'],
      {
        input: JSON.stringify({
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenReview',
          spec: { token },
        }),
      },
    );
    expect(
      (JSON.parse(wrongAudience.stdout) as { status: { authenticated?: boolean } }).status.authenticated,
    ).toBeUndefined();

    const configuration = JSON.parse(
      (await cluster.kubectl(['get', '--raw', '/.well-known/openid-configuration'])).stdout,
    ) as {
      issuer: string;
    };
    expect(configuration.issuer).toBe('https://kubernetes.default.svc.cluster.local');
    expect(configuration).toMatchObject({ id_token_signing_alg_values_supported: ['ES256'] });
    const jwks = JSON.parse((await cluster.kubectl(['get', '--raw', '/openid/v1/jwks'])).stdout) as {
      keys: { kid: string; kty: string; crv: string; alg: string }[];
    };
    const [header, payload, signature] = token.split('.');
    const { kid, alg } = JSON.parse(Buffer.from(header!, 'base64url').toString()) as {
      kid: string;
      alg: string;
    };
    // A new cluster's key is ECDSA P-256 (kubeadm's ECDSA-P256): tokens are ES256, r‖s signatures.
    expect(alg).toBe('ES256');
    const jwk = jwks.keys.find((key) => key.kid === kid)!;
    expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    const verifier = createVerify('SHA256');
    verifier.update(`${header}.${payload}`);
    expect(
      verifier.verify(
        { key: createPublicKey({ key: jwk as never, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
        Buffer.from(signature!, 'base64url'),
      ),
    ).toBe(true);
  });
});
