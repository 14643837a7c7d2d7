// Real kubectl against `tkube up --nodes 0` with an operator-shaped CRD set: install, wait for
// Established, create, get (printer columns, wide, short names, categories), scale, status,
// selectors, explain, deprecated versions, refusals with upstream's texts, and deletion.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlRelease, startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;
const CRDS = readFileSync(new URL('./fixtures/operator-crds.yaml', import.meta.url), 'utf8');
const RESOURCES = readFileSync(new URL('./fixtures/operator-resources.yaml', import.meta.url), 'utf8');

beforeAll(async () => {
  cluster = await startTestCluster('crd-kubectl', { kubectl: kubectlRelease('1.33') });
}, 60_000);

afterAll(async () => {
  await cluster?.down();
});

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

async function fails(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')} should fail`).not.toBe(0);
  return result.stderr;
}

/** Output lines with the AGE cells (a duration such as `3s` at the end of a row) blanked. */
function rows(text: string): string[] {
  return text.split('\n').map((line) => line.replace(/\s+\d+[smh]$/, '').trimEnd());
}

describe('custom resources with kubectl', () => {
  it('installs CRDs that become Established at once', async () => {
    const started = Date.now();
    expect((await ok(['apply', '-f', '-'], CRDS)).split('\n')).toEqual([
      'customresourcedefinition.apiextensions.k8s.io/databases.db.tkube.dev created',
      'customresourcedefinition.apiextensions.k8s.io/backuppolicies.db.tkube.dev created',
    ]);
    await ok([
      'wait',
      '--for',
      'condition=Established',
      'crd/databases.db.tkube.dev',
      'crd/backuppolicies.db.tkube.dev',
    ]);
    expect(Date.now() - started).toBeLessThan(10_000);
    const status = JSON.parse(
      await ok(['get', 'crd', 'databases.db.tkube.dev', '-o', 'jsonpath={.status}']),
    ) as {
      acceptedNames: unknown;
      storedVersions: string[];
    };
    expect(status.acceptedNames).toEqual({
      plural: 'databases',
      singular: 'database',
      shortNames: ['dbs'],
      kind: 'Database',
      listKind: 'DatabaseList',
      categories: ['all', 'tkube'],
    });
    expect(status.storedVersions).toEqual(['v1']);
  });

  it('creates custom resources and prints their columns', async () => {
    expect((await ok(['apply', '-f', '-'], RESOURCES)).split('\n')).toEqual([
      'database.db.tkube.dev/orders created',
      'database.db.tkube.dev/catalog created',
      'backuppolicy.db.tkube.dev/nightly created',
    ]);
    expect(rows(await ok(['get', 'databases']))).toEqual([
      'NAME      ENGINE     REPLICAS   READY   AGE',
      'catalog   mysql      1',
      'orders    postgres   3',
    ]);
    expect(rows(await ok(['get', 'dbs', '-o', 'wide']))).toEqual([
      'NAME      ENGINE     REPLICAS   READY   VERSION   AGE',
      'catalog   mysql      1',
      'orders    postgres   3                  16',
    ]);
    expect(rows(await ok(['get', 'backuppolicies']))).toEqual(['NAME      AGE', 'nightly']);
    const all = await ok(['get', 'all', '-o', 'name']);
    expect(all.split('\n')).toEqual(
      expect.arrayContaining(['database.db.tkube.dev/catalog', 'database.db.tkube.dev/orders']),
    );
    expect(all).not.toContain('backuppolicy');
    expect((await ok(['get', 'tkube', '-o', 'name'])).split('\n')).toEqual([
      'database.db.tkube.dev/catalog',
      'database.db.tkube.dev/orders',
    ]);
  });

  it('keeps nested objects, lists of maps, int-or-string and embedded resources', async () => {
    const spec = JSON.parse(await ok(['get', 'database', 'orders', '-o', 'jsonpath={.spec}'])) as Record<
      string,
      unknown
    >;
    expect(spec).toMatchObject({
      engine: 'postgres',
      maxUnavailable: '25%',
      storage: { size: '10Gi' },
      users: [{ name: 'app', roles: ['read', 'write'] }],
      podTemplate: { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { tier: 'db' } } },
    });
  });

  it('scales through the scale subresource and updates status', async () => {
    expect(await ok(['scale', 'database', 'orders', '--replicas=5'])).toBe(
      'database.db.tkube.dev/orders scaled',
    );
    expect(
      await ok(['get', 'database', 'orders', '-o', 'jsonpath={.spec.replicas} {.metadata.generation}']),
    ).toBe('5 2');
    await ok([
      'patch',
      'database',
      'orders',
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"replicas":5,"selector":"app=orders","conditions":[{"type":"Ready","status":"True"}]}}',
    ]);
    expect(rows(await ok(['get', 'database', 'orders']))).toEqual([
      'NAME     ENGINE     REPLICAS   READY   AGE',
      'orders   postgres   5          True',
    ]);
    const scale = JSON.parse(
      await ok(['get', '--raw', '/apis/db.tkube.dev/v1/namespaces/default/databases/orders/scale']),
    );
    expect(scale).toMatchObject({ spec: { replicas: 5 }, status: { replicas: 5, selector: 'app=orders' } });
    // A status write leaves the generation alone.
    expect(await ok(['get', 'database', 'orders', '-o', 'jsonpath={.metadata.generation}'])).toBe('2');
  });

  it('selects by label, name and selectable field', async () => {
    expect(await ok(['get', 'databases', '-l', 'team=shop', '-o', 'name'])).toBe(
      'database.db.tkube.dev/orders',
    );
    expect(await ok(['get', 'databases', '--field-selector', 'spec.engine=mysql', '-o', 'name'])).toBe(
      'database.db.tkube.dev/catalog',
    );
    expect(await ok(['get', 'databases', '--field-selector', 'metadata.name=orders', '-o', 'name'])).toBe(
      'database.db.tkube.dev/orders',
    );
    expect(await fails(['get', 'databases', '--field-selector', 'spec.version=16'])).toBe(
      'Error from server (BadRequest): Unable to find "db.tkube.dev/v1, Resource=databases" that match label selector "", field selector "spec.version=16": field label not supported: spec.version',
    );
  });

  it('explains custom kinds down to nested fields', async () => {
    const explained = await ok(['explain', 'database.spec.storage']);
    expect(explained).toContain('KIND:       Database');
    expect(explained).toContain('FIELD: storage <Object>');
    expect(explained).toContain('Storage of each replica.');
    expect(explained).toMatch(/size\s+<string>\n\s+Size of the volume, as a quantity\./);
  });

  it('serves the deprecated version with its warning, converted', async () => {
    const result = await cluster.kubectl([
      'get',
      'databases.v1beta1.db.tkube.dev',
      'orders',
      '-o',
      'jsonpath={.apiVersion}',
    ]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('db.tkube.dev/v1beta1');
    expect(result.stderr).toBe('Warning: db.tkube.dev/v1beta1 Database is deprecated');
  });

  it('refuses what upstream refuses, with its texts', async () => {
    const badCrd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: caches.db.tkube.dev
spec:
  group: db.tkube.dev
  scope: Regional
  names: {plural: caches, kind: Cache, listKind: Cache, shortNames: [Bad_Name]}
  versions:
  - {name: v1, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}
`;
    expect((await fails(['apply', '-f', '-'], badCrd)).split('\n')).toEqual([
      'The CustomResourceDefinition "caches.db.tkube.dev" is invalid: ',
      '* spec.scope: Unsupported value: "Regional": supported values: "Cluster", "Namespaced"',
      '* spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{apiextensions.CustomResourceDefinitionVersion{Name:"v1", Served:true, Storage:false, ...}}: must have exactly one version marked as storage version',
      `* spec.names.shortNames[0]: Invalid value: "Bad_Name": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      '* spec.names.listKind: Invalid value: "Cache": kind and listKind may not be the same',
      '* status.storedVersions: Invalid value: []string(nil): must have at least one stored version',
    ]);
    const conflicting = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: replicas.db.tkube.dev
spec:
  group: db.tkube.dev
  scope: Namespaced
  names: {plural: replicas, kind: Replica, shortNames: [dbs]}
  versions:
  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
`;
    await ok(['apply', '-f', '-'], conflicting);
    await ok(['wait', '--for', 'condition=NamesAccepted=False', 'crd/replicas.db.tkube.dev']);
    expect(
      await ok([
        'get',
        'crd',
        'replicas.db.tkube.dev',
        '-o',
        'jsonpath={.status.conditions[?(@.type=="NamesAccepted")].message}',
      ]),
    ).toBe('"dbs" is already in use');
    expect(await fails(['create', '-n', 'nowhere', '-f', '-'], RESOURCES.split('---')[1]!)).toBe(
      'Error from server (NotFound): error when creating "STDIN": namespaces "nowhere" not found',
    );
  });

  it('deletes a CRD after its instances', async () => {
    expect(await ok(['delete', 'crd', 'databases.db.tkube.dev'])).toBe(
      'customresourcedefinition.apiextensions.k8s.io "databases.db.tkube.dev" deleted',
    );
    expect(await ok(['get', 'crd', '-o', 'name'])).not.toContain('databases.db.tkube.dev');
    // The short name it held is free now: the CRD that asked for it gets it.
    await ok(['wait', '--for', 'condition=Established', 'crd/replicas.db.tkube.dev']);
    const resources = await ok(['api-resources', '--api-group=db.tkube.dev', '-o', 'name']);
    expect(resources.split('\n')).toEqual(['backuppolicies.db.tkube.dev', 'replicas.db.tkube.dev']);
  });
});
