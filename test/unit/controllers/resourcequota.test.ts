// The resource quota controller: status.hard follows spec.hard, status.used is measured from the
// objects there are (also kinds only a `count/` quota names), and falls again as objects go.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../../src/api/types/batch-v1.generated.js';
import type {
  ConfigMap,
  Namespace,
  Pod,
  ResourceQuota,
  Secret,
} from '../../../src/api/types/core-v1.generated.js';
import {
  CONFIG_MAPS,
  JOBS,
  NAMESPACES,
  PODS,
  RESOURCE_QUOTAS,
  SECRETS,
} from '../../../src/client/resources.js';
import type { ApiError } from '../../../src/client/rest/index.js';
import {
  eventually,
  type InProcessControlPlane,
  startInProcessControlPlane,
} from '../../support/control-plane.js';

let cp: InProcessControlPlane;
const NS = 'quota';
beforeAll(async () => {
  cp = await startInProcessControlPlane();
  await cp.admin.resource<Namespace>(NAMESPACES).create({ metadata: { name: NS } });
  // kube-root-ca.crt is counted too: let it arrive first.
  await eventually(() =>
    cp.admin
      .resource<ConfigMap>(CONFIG_MAPS)
      .get(NS, 'kube-root-ca.crt')
      .catch(() => undefined),
  );
}, 30_000);
afterAll(() => cp?.stop());

const quotas = () => cp.admin.resource<ResourceQuota>(RESOURCE_QUOTAS);

/** The quota once its status.used matches `used`. */
function usedBecomes(name: string, used: Record<string, string>): Promise<ResourceQuota> {
  return eventually(async () => {
    const quota = await quotas().get(NS, name);
    return JSON.stringify(quota.status?.used) === JSON.stringify(used) ? quota : undefined;
  });
}

describe('resource quota controller', () => {
  it('fills in hard and used, and lowers used when objects go', async () => {
    await quotas().create({
      metadata: { name: 'objects', namespace: NS },
      spec: { hard: { configmaps: '3', pods: '2', 'requests.cpu': '2' } },
    });
    const filled = await usedBecomes('objects', { configmaps: '1', pods: '0', 'requests.cpu': '0' });
    expect(filled.status?.hard).toEqual({ configmaps: '3', pods: '2', 'requests.cpu': '2' });

    const configMaps = cp.admin.resource<ConfigMap>(CONFIG_MAPS);
    await configMaps.create({ metadata: { name: 'a', namespace: NS } });
    await configMaps.create({ metadata: { name: 'b', namespace: NS } });
    await cp.admin.resource<Pod>(PODS).create({
      metadata: { name: 'p', namespace: NS },
      spec: { containers: [{ name: 'app', image: 'busybox', resources: { requests: { cpu: '500m' } } }] },
    });
    // Admission charged them; the quota is full for configmaps.
    await usedBecomes('objects', { configmaps: '3', pods: '1', 'requests.cpu': '500m' });
    const refused = await configMaps
      .create({ metadata: { name: 'c', namespace: NS } })
      .catch((e: unknown) => e);
    expect((refused as ApiError).code).toBe(403);

    await configMaps.delete(NS, 'a');
    await cp.admin.resource<Pod>(PODS).delete(NS, 'p');
    await usedBecomes('objects', { configmaps: '2', pods: '0', 'requests.cpu': '0' });
  });

  it('recalculates when the limits change', async () => {
    const quota = await usedBecomes('objects', { configmaps: '2', pods: '0', 'requests.cpu': '0' });
    await quotas().update({ ...quota, spec: { hard: { configmaps: '10', secrets: '5' } } });
    const updated = await usedBecomes('objects', { configmaps: '2', secrets: '0' });
    expect(updated.status?.hard).toEqual({ configmaps: '10', secrets: '5' });
  });

  it('counts any namespaced kind a count/ quota names', async () => {
    await quotas().create({
      metadata: { name: 'jobs', namespace: NS },
      spec: { hard: { 'count/jobs.batch': '5' } },
    });
    await usedBecomes('jobs', { 'count/jobs.batch': '0' });
    const jobs = cp.admin.resource<Job>(JOBS);
    await jobs.create({
      metadata: { name: 'j', namespace: NS },
      spec: {
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'busybox' }] } },
      },
    });
    await usedBecomes('jobs', { 'count/jobs.batch': '1' });
    await jobs.delete(NS, 'j', { propagationPolicy: 'Background' });
    await usedBecomes('jobs', { 'count/jobs.batch': '0' });
  });
});

describe('resource quota admission under concurrent writes', () => {
  const RACE_NS = 'quota-race';
  it('admits exactly what the quota allows when many creates race', async () => {
    await cp.admin.resource<Namespace>(NAMESPACES).create({ metadata: { name: RACE_NS } });
    await quotas().create({
      metadata: { name: 'secrets', namespace: RACE_NS },
      spec: { hard: { secrets: '5' } },
    });
    await eventually(async () => {
      const quota = await quotas().get(RACE_NS, 'secrets');
      return quota.status?.used?.secrets === '0' ? quota : undefined;
    });
    const secrets = cp.admin.resource<Secret>(SECRETS);
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        secrets.create({ metadata: { name: `race-${i}`, namespace: RACE_NS } }).then(
          () => 'created',
          (error: unknown) => `${(error as ApiError).code}`,
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'created')).toHaveLength(5);
    expect(outcomes.filter((o) => o === '403')).toHaveLength(25);
    expect((await secrets.list(RACE_NS)).items).toHaveLength(5);
    expect((await quotas().get(RACE_NS, 'secrets')).status?.used).toEqual({ secrets: '5' });
    const refused = await secrets
      .create({ metadata: { name: 'one-more', namespace: RACE_NS } })
      .catch((e: unknown) => e);
    expect((refused as ApiError).message).toBe(
      'secrets "one-more" is forbidden: exceeded quota: secrets, requested: secrets=1, used: secrets=5, limited: secrets=5',
    );
  });
});
