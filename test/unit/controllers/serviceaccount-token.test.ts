// The tokens controller: a `kubernetes.io/service-account-token` Secret gets a legacy token, the
// CA and its namespace; the token authenticates as the account while the Secret holds it, and a
// token Secret whose account is deleted goes too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenReview } from '../../../src/api/types/authentication-v1.generated.js';
import type { Namespace, Secret, ServiceAccount } from '../../../src/api/types/core-v1.generated.js';
import { NAMESPACES, SECRETS, SERVICE_ACCOUNTS, TOKEN_REVIEWS } from '../../../src/client/resources.js';
import { isNotFound } from '../../../src/client/rest/index.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

let cp: InProcessControlPlane;
const NS = 'tokens';
beforeAll(async () => {
  cp = await startInProcessControlPlane();
  await cp.admin.resource<Namespace>(NAMESPACES).create({ metadata: { name: NS } });
}, 30_000);
afterAll(() => cp?.stop());

const secrets = () => cp.admin.resource<Secret>(SECRETS);
const decode = (value: string | undefined) => Buffer.from(value ?? '', 'base64').toString('utf8');

async function tokenSecret(name: string, account: string): Promise<Secret> {
  await secrets().create({
    metadata: { name, namespace: NS, annotations: { 'kubernetes.io/service-account.name': account } },
    type: 'kubernetes.io/service-account-token',
  });
  return eventually(async () => {
    const secret = await secrets().get(NS, name);
    return secret.data?.token ? secret : undefined;
  });
}

async function review(token: string): Promise<TokenReview['status']> {
  const created = await cp.admin.resource<TokenReview>(TOKEN_REVIEWS).create({ spec: { token } });
  return created.status;
}

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}

describe('tokens controller', () => {
  it('fills a token Secret with a legacy token, the CA and the namespace', async () => {
    const account = await cp.admin
      .resource<ServiceAccount>(SERVICE_ACCOUNTS)
      .create({ metadata: { name: 'robot', namespace: NS } });
    const secret = await tokenSecret('robot-token', 'robot');
    expect(Object.keys(secret.data ?? {}).sort()).toEqual(['ca.crt', 'namespace', 'token']);
    expect(decode(secret.data?.namespace)).toBe(NS);
    expect(decode(secret.data?.['ca.crt'])).toContain('-----BEGIN CERTIFICATE-----');
    expect(secret.metadata?.annotations?.['kubernetes.io/service-account.uid']).toBe(account.metadata?.uid);
    const token = decode(secret.data?.token);
    expect(claimsOf(token)).toEqual({
      iss: 'kubernetes/serviceaccount',
      'kubernetes.io/serviceaccount/namespace': NS,
      'kubernetes.io/serviceaccount/secret.name': 'robot-token',
      'kubernetes.io/serviceaccount/service-account.name': 'robot',
      'kubernetes.io/serviceaccount/service-account.uid': account.metadata?.uid,
      sub: `system:serviceaccount:${NS}:robot`,
    });
  });

  it('issues tokens that authenticate while their Secret exists', async () => {
    await cp.admin
      .resource<ServiceAccount>(SERVICE_ACCOUNTS)
      .create({ metadata: { name: 'bot', namespace: NS } });
    const token = decode((await tokenSecret('bot-token', 'bot')).data?.token);
    const accepted = await review(token);
    expect(accepted?.authenticated).toBe(true);
    expect(accepted?.user?.username).toBe(`system:serviceaccount:${NS}:bot`);

    await secrets().delete(NS, 'bot-token');
    const rejected = await review(token);
    expect(rejected?.authenticated).toBeFalsy();
  });

  it('deletes the token Secrets of a deleted account, and of an account that never was', async () => {
    const accounts = cp.admin.resource<ServiceAccount>(SERVICE_ACCOUNTS);
    await accounts.create({ metadata: { name: 'short-lived', namespace: NS } });
    await tokenSecret('short-lived-token', 'short-lived');
    await accounts.delete(NS, 'short-lived');
    await secrets().create({
      metadata: {
        name: 'orphan-token',
        namespace: NS,
        annotations: { 'kubernetes.io/service-account.name': 'nobody' },
      },
      type: 'kubernetes.io/service-account-token',
    });
    for (const name of ['short-lived-token', 'orphan-token']) {
      await eventually(() =>
        secrets()
          .get(NS, name)
          .then(
            () => undefined,
            (error: unknown) => (isNotFound(error) ? true : undefined),
          ),
      );
    }
  });

  it('leaves other Secrets alone', async () => {
    await secrets().create({ metadata: { name: 'plain', namespace: NS }, stringData: { a: 'b' } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const plain = await secrets().get(NS, 'plain');
    expect(Object.keys(plain.data ?? {})).toEqual(['a']);
    expect(plain.metadata?.annotations).toBeUndefined();
  });
});
