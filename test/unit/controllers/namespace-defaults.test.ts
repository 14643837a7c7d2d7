// What every namespace gets from the serviceaccount and root-ca-cert-publisher controllers: the
// `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap, both restored when deleted, the
// ConfigMap also when changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigMap, Namespace, ServiceAccount } from '../../../src/api/types/core-v1.generated.js';
import { CONFIG_MAPS, NAMESPACES, SERVICE_ACCOUNTS } from '../../../src/client/resources.js';
import {
  DESCRIPTION_ANNOTATION,
  ROOT_CA_DESCRIPTION,
} from '../../../src/controllers/root-ca-publisher/root-ca-publisher.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

let cp: InProcessControlPlane;
beforeAll(async () => {
  cp = await startInProcessControlPlane();
}, 30_000);
afterAll(() => cp?.stop());

const accounts = () => cp.admin.resource<ServiceAccount>(SERVICE_ACCOUNTS);
const configMaps = () => cp.admin.resource<ConfigMap>(CONFIG_MAPS);
const found = <T>(read: Promise<T>) => read.catch(() => undefined);

describe('namespace defaults', () => {
  it('gives a new namespace its default ServiceAccount and kube-root-ca.crt within a second', async () => {
    await cp.admin.resource<Namespace>(NAMESPACES).create({ metadata: { name: 'defaults-new' } });
    const [account, rootCa] = await Promise.all([
      eventually(() => found(accounts().get('defaults-new', 'default')), 1_000),
      eventually(() => found(configMaps().get('defaults-new', 'kube-root-ca.crt')), 1_000),
    ]);
    expect(account.metadata?.name).toBe('default');
    expect(rootCa.metadata?.annotations?.[DESCRIPTION_ANNOTATION]).toBe(ROOT_CA_DESCRIPTION);
    expect(Object.keys(rootCa.data ?? {})).toEqual(['ca.crt']);
    expect(rootCa.data?.['ca.crt']).toMatch(
      /^-----BEGIN CERTIFICATE-----\n[\s\S]+-----END CERTIFICATE-----\n?$/,
    );
  });

  it('covers the namespaces that existed before the controllers started', async () => {
    for (const namespace of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      await eventually(() => found(accounts().get(namespace, 'default')));
      await eventually(() => found(configMaps().get(namespace, 'kube-root-ca.crt')));
    }
  });

  it('brings back a deleted or changed kube-root-ca.crt', async () => {
    await cp.admin.resource<Namespace>(NAMESPACES).create({ metadata: { name: 'defaults-restore' } });
    const original = await eventually(() => found(configMaps().get('defaults-restore', 'kube-root-ca.crt')));

    await configMaps().delete('defaults-restore', 'kube-root-ca.crt');
    const recreated = await eventually(async () => {
      const current = await found(configMaps().get('defaults-restore', 'kube-root-ca.crt'));
      return current && current.metadata?.uid !== original.metadata?.uid ? current : undefined;
    });
    expect(recreated.data).toEqual(original.data);

    await configMaps().update({
      ...recreated,
      metadata: { ...recreated.metadata, annotations: {} },
      data: { 'ca.crt': 'tampered', extra: 'x' },
    });
    const restored = await eventually(async () => {
      const current = await configMaps().get('defaults-restore', 'kube-root-ca.crt');
      return current.data?.['ca.crt'] === original.data?.['ca.crt'] ? current : undefined;
    });
    expect(restored.data).toEqual(original.data);
    expect(restored.metadata?.annotations?.[DESCRIPTION_ANNOTATION]).toBe(ROOT_CA_DESCRIPTION);
    expect(restored.metadata?.uid).toBe(recreated.metadata?.uid);
  });

  it('brings back a deleted default ServiceAccount', async () => {
    await cp.admin.resource<Namespace>(NAMESPACES).create({ metadata: { name: 'defaults-account' } });
    const original = await eventually(() => found(accounts().get('defaults-account', 'default')));
    await accounts().delete('defaults-account', 'default');
    const recreated = await eventually(async () => {
      const current = await found(accounts().get('defaults-account', 'default'));
      return current && current.metadata?.uid !== original.metadata?.uid ? current : undefined;
    });
    expect(recreated.metadata?.name).toBe('default');
  });
});
