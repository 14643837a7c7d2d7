import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import {
  type BoundObjectLookup,
  createBindingValidator,
} from '../../../src/pki/service-account-token-binding.js';
import type { TokenBinding } from '../../../src/pki/service-account-token-verifier.js';

const NOW = new Date('2025-05-01T10:00:00Z');
const LEGACY_TOKEN = 'header.payload.signature';

function object(
  uid: string,
  extra: Partial<NonNullable<KubeObject['metadata']>> = {},
  data?: object,
): KubeObject {
  return { metadata: { uid, ...extra }, ...(data ? { data } : {}) };
}

/** An in-memory store of the objects tokens name, keyed like the apiserver's. */
function lookup(objects: Record<string, KubeObject>, used: string[] = []): BoundObjectLookup {
  return {
    getServiceAccount: async (namespace, name) => objects[`serviceaccounts/${namespace}/${name}`],
    getPod: async (namespace, name) => objects[`pods/${namespace}/${name}`],
    getSecret: async (namespace, name) => objects[`secrets/${namespace}/${name}`],
    getNode: async (name) => objects[`nodes/${name}`],
    markLegacyTokenUsed: async (namespace, name, today) => {
      used.push(`${namespace}/${name}@${today}`);
    },
  };
}

function bound(extra: Partial<TokenBinding> = {}): TokenBinding {
  return {
    kind: 'bound',
    token: 'irrelevant',
    namespace: 'apps',
    serviceAccount: { name: 'web', uid: 'sa-1' },
    claims: { iss: 'https://kubernetes.default.svc.cluster.local' },
    ...extra,
  };
}

describe('binding validation against the store', () => {
  const validate = (objects: Record<string, KubeObject>) =>
    createBindingValidator(lookup(objects), { now: () => NOW });

  it('accepts a token whose service account and pod exist with the same UIDs', async () => {
    const check = validate({
      'serviceaccounts/apps/web': object('sa-1'),
      'pods/apps/web-0': object('pod-1'),
    });
    expect(await check(bound({ pod: { name: 'web-0', uid: 'pod-1' } }))).toBeUndefined();
  });

  it('refuses a token whose service account is gone or was recreated', async () => {
    expect(await validate({})(bound())).toBe('serviceaccounts "web" not found');
    expect(await validate({ 'serviceaccounts/apps/web': object('sa-2') })(bound())).toBe(
      'service account UID (sa-2) does not match claim (sa-1)',
    );
    const deleting = object('sa-1', { deletionTimestamp: '2025-05-01T09:58:00Z' });
    expect(await validate({ 'serviceaccounts/apps/web': deleting })(bound())).toBe(
      'service account apps/web has been deleted',
    );
  });

  it('refuses pod-bound tokens once the pod is gone, replaced, or deleting beyond the leeway', async () => {
    const sa = { 'serviceaccounts/apps/web': object('sa-1') };
    const binding = bound({ pod: { name: 'web-0', uid: 'pod-1' }, node: { name: 'node-1', uid: 'gone' } });
    expect(await validate(sa)(binding)).toBe('service account token has been invalidated');
    expect(await validate({ ...sa, 'pods/apps/web-0': object('pod-2') })(binding)).toBe(
      'pod UID (pod-2) does not match service account pod ref claim (pod-1)',
    );
    const justDeleting = object('pod-1', { deletionTimestamp: '2025-05-01T09:59:30Z' });
    // A pod-bound token's node is informational: the missing node is not looked up.
    expect(await validate({ ...sa, 'pods/apps/web-0': justDeleting })(binding)).toBeUndefined();
    const longDeleting = object('pod-1', { deletionTimestamp: '2025-05-01T09:58:59Z' });
    expect(await validate({ ...sa, 'pods/apps/web-0': longDeleting })(binding)).toBe(
      'service account token has been invalidated',
    );
  });

  it('checks secret-bound and node-bound tokens the same way', async () => {
    const sa = { 'serviceaccounts/apps/web': object('sa-1') };
    const secretBound = bound({ secret: { name: 'creds', uid: 'secret-1' } });
    expect(await validate({ ...sa, 'secrets/apps/creds': object('secret-1') })(secretBound)).toBeUndefined();
    expect(await validate({ ...sa, 'secrets/apps/creds': object('secret-9') })(secretBound)).toBe(
      'secret UID (secret-9) does not match service account secret ref claim (secret-1)',
    );
    const nodeBound = bound({ node: { name: 'node-1', uid: 'node-1-uid' } });
    expect(await validate({ ...sa, 'nodes/node-1': object('node-1-uid') })(nodeBound)).toBeUndefined();
    expect(await validate(sa)(nodeBound)).toBe('service account token has been invalidated');
    expect(await validate({ ...sa, 'nodes/node-1': object('other') })(nodeBound)).toBe(
      'node UID (other) does not match service account node ref claim (node-1-uid)',
    );
  });

  describe('legacy tokens', () => {
    const legacy = (): TokenBinding => ({
      kind: 'legacy',
      token: LEGACY_TOKEN,
      namespace: 'apps',
      serviceAccount: { name: 'web', uid: 'sa-1' },
      secret: { name: 'web-token' },
      claims: {
        iss: 'kubernetes/serviceaccount',
        'kubernetes.io/serviceaccount/namespace': 'apps',
        'kubernetes.io/serviceaccount/secret.name': 'web-token',
        'kubernetes.io/serviceaccount/service-account.name': 'web',
        'kubernetes.io/serviceaccount/service-account.uid': 'sa-1',
      },
    });
    const secretData = { token: Buffer.from(LEGACY_TOKEN).toString('base64') };

    it('accepts the token its Secret still holds and records the day it was used', async () => {
      const used: string[] = [];
      const objects = {
        'serviceaccounts/apps/web': object('sa-1'),
        'secrets/apps/web-token': object('s-1', {}, secretData),
      };
      const check = createBindingValidator(lookup(objects, used), { now: () => NOW });
      expect(await check(legacy())).toBeUndefined();
      expect(used).toEqual(['apps/web-token@2025-05-01']);

      const labelled = object(
        's-1',
        { labels: { 'kubernetes.io/legacy-token-last-used': '2025-05-01' } },
        secretData,
      );
      const quiet: string[] = [];
      const again = createBindingValidator(
        lookup({ ...objects, 'secrets/apps/web-token': labelled }, quiet),
        {
          now: () => NOW,
        },
      );
      expect(await again(legacy())).toBeUndefined();
      expect(quiet).toEqual([]);
    });

    it('refuses when the Secret is gone, deleting, holds another token, or is marked invalid', async () => {
      const sa = { 'serviceaccounts/apps/web': object('sa-1') };
      expect(await validate(sa)(legacy())).toBe('Token has been invalidated');
      const deleting = object('s-1', { deletionTimestamp: '2025-05-01T09:59:59Z' }, secretData);
      expect(await validate({ ...sa, 'secrets/apps/web-token': deleting })(legacy())).toBe(
        'Token has been invalidated',
      );
      const rotated = object('s-1', {}, { token: Buffer.from('another.token.value').toString('base64') });
      expect(await validate({ ...sa, 'secrets/apps/web-token': rotated })(legacy())).toBe(
        "Token does not match server's copy",
      );
      const invalid = object(
        's-1',
        { labels: { 'kubernetes.io/legacy-token-invalid-since': '2025-04-01' } },
        secretData,
      );
      expect(await validate({ ...sa, 'secrets/apps/web-token': invalid })(legacy())).toBe(
        'the token in secret apps/web-token for service account apps/web has been marked invalid. Use tokens ' +
          'from the TokenRequest API or manually created secret-based tokens, or remove the ' +
          "'kubernetes.io/legacy-token-invalid-since' label from the secret to temporarily allow use of this token",
      );
      const secret = { 'secrets/apps/web-token': object('s-1', {}, secretData) };
      expect(await validate({ ...secret, 'serviceaccounts/apps/web': object('sa-2') })(legacy())).toBe(
        'ServiceAccount UID (sa-2) does not match claim (sa-1)',
      );
    });
  });
});
