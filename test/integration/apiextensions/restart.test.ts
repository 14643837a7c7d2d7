// Custom resources survive a control plane restart: the CRDs in the store are served again as
// soon as the API server starts, with their instances, discovery and renamed short names.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { ensureClusterPki } from '../../../src/pki/cluster-pki.js';
import { eventually } from '../../support/control-plane.js';
import { httpsCaller } from '../../support/https-call.js';

const stateDir = mkdtempSync(join(tmpdir(), 'tkube-crd-restart-'));
let controlPlane: RunningControlPlane | undefined;

afterAll(async () => {
  await controlPlane?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'clocks.time.example.com' },
  spec: {
    group: 'time.example.com',
    scope: 'Cluster',
    names: { plural: 'clocks', kind: 'Clock', shortNames: ['clk'] },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
  },
};

describe('custom resources across a restart', () => {
  it('serves stored CRDs again at start-up and follows renames', async () => {
    const pki = await ensureClusterPki(join(stateDir, 'pki'));
    controlPlane = await startControlPlane({ stateDir, apiPort: 0 });
    let call = httpsCaller(() => controlPlane!.port, pki);
    expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD)).status).toBe(
      201,
    );
    const clock = { apiVersion: 'time.example.com/v1', kind: 'Clock', metadata: { name: 'big-ben' } };
    await eventually(async () =>
      (await call('POST', '/apis/time.example.com/v1/clocks', clock)).status === 201 ? true : undefined,
    );
    await controlPlane.stop();

    controlPlane = await startControlPlane({ stateDir, apiPort: 0 });
    call = httpsCaller(() => controlPlane!.port, pki);
    const read = await call('GET', '/apis/time.example.com/v1/clocks/big-ben');
    expect(read.status).toBe(200);
    expect((await call('GET', '/apis/time.example.com/v1')).json().resources).toMatchObject([
      { name: 'clocks', shortNames: ['clk'] },
    ]);

    const renamed = await call(
      'PATCH',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clocks.time.example.com',
      { spec: { names: { shortNames: ['ck'], categories: ['timekeeping'] } } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(renamed.status).toBe(200);
    const resources = await eventually(async () => {
      const list = (await call('GET', '/apis/time.example.com/v1')).json().resources as {
        shortNames?: string[];
      }[];
      return list[0]?.shortNames?.[0] === 'ck' ? list : undefined;
    });
    expect(resources).toMatchObject([{ name: 'clocks', shortNames: ['ck'], categories: ['timekeeping'] }]);
  });
});
