// Real kubectl 1.33 and 1.28 `apply --server-side` against `tkube up --nodes 0`: create, change
// and remove fields, the conflict message and --force-conflicts, two managers sharing a list map,
// a custom resource, `get --show-managed-fields`, client-side apply followed by server-side, and
// managers at two API versions of one object (HPA autoscaling/v1 and v2, a CRD's v1 and v2).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlRelease, startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster('sa-kubectl', { kubectl: kubectlRelease('1.33') });
}, 60_000);

afterAll(async () => {
  await cluster?.down();
});

interface PartsVersion {
  readonly name: string;
  readonly storage: boolean;
  readonly listType: 'map' | 'atomic';
  /** The integer field beside `parts` in spec. */
  readonly integer: string;
  /** With a scale subresource on `.spec.<integer>`. */
  readonly scale?: boolean;
}

/** A CRD whose versions hold `spec.parts` (keyed by name, or atomic) and one integer field. */
function partsCrd(plural: string, kind: string, versions: readonly PartsVersion[]): string {
  const version = (v: PartsVersion) => `  - name: ${v.name}
    served: true
    storage: ${v.storage}
${v.scale ? `    subresources:\n      scale: {specReplicasPath: .spec.${v.integer}, statusReplicasPath: .status.${v.integer}}\n` : ''}    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              ${v.integer}: {type: integer}
              parts:
                type: array
                x-kubernetes-list-type: ${v.listType}
${v.listType === 'map' ? '                x-kubernetes-list-map-keys: [name]\n' : ''}                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    count: {type: integer}
`;
  return `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.ssa.tkube.dev
spec:
  group: ssa.tkube.dev
  scope: Namespaced
  names: {plural: ${plural}, singular: ${plural.replace(/s$/, '')}, kind: ${kind}}
  versions:
${versions.map(version).join('')}`;
}

const CRD = partsCrd('gadgets', 'Gadget', [{ name: 'v1', storage: true, listType: 'map', integer: 'size' }]);

// v1 keys parts by name, v2 holds them atomic; the scale subresource in both.
const CRD_TWO_VERSIONS = partsCrd(
  'widgets',
  'Widget',
  ['v1', 'v2'].map((name) => ({
    name,
    storage: name === 'v1',
    listType: name === 'v1' ? 'map' : 'atomic',
    integer: 'replicas',
    scale: true,
  })),
);

describe.each(['1.33', '1.28'])('kubectl %s apply --server-side', (release) => {
  const binary = kubectlRelease(release);
  const ns = `ssa-${release.replace('.', '-')}`;
  const run = (args: string[], input?: string) => cluster.kubectl(['-n', ns, ...args], { binary, input });
  const ok = async (args: string[], input?: string) => {
    const result = await run(args, input);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    return result.stdout;
  };
  const configMap = (data: string) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n${data}`;

  beforeAll(async () => {
    await cluster.kubectl(['create', 'namespace', ns], { binary });
  });

  it('creates, changes and removes a field', async () => {
    expect(await ok(['apply', '--server-side', '-f', '-'], configMap('  a: "1"\n  b: "2"\n'))).toBe(
      'configmap/settings serverside-applied',
    );
    await ok(['apply', '--server-side', '-f', '-'], configMap('  a: "10"\n'));
    expect(await ok(['get', 'configmap', 'settings', '-o', 'jsonpath={.data}'])).toBe('{"a":"10"}');
  });

  it('shows managed fields in get -o yaml --show-managed-fields', async () => {
    const yaml = await ok(['get', 'configmap', 'settings', '-o', 'yaml', '--show-managed-fields']);
    expect(yaml).toContain(
      [
        '  managedFields:',
        '  - apiVersion: v1',
        '    fieldsType: FieldsV1',
        '    fieldsV1:',
        '      f:data:',
        '        f:a: {}',
        '    manager: kubectl',
        '    operation: Apply',
      ].join('\n'),
    );
    const plain = await ok(['get', 'configmap', 'settings', '-o', 'yaml']);
    expect(plain).not.toContain('managedFields');
  });

  it('refuses a conflicting apply with upstream text and takes over with --force-conflicts', async () => {
    const other = ['apply', '--server-side', '--field-manager=other', '-f', '-'];
    const refused = await run(other, configMap('  a: "20"\n'));
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .data.a');
    await ok([...other.slice(0, 3), '--force-conflicts', ...other.slice(3)], configMap('  a: "20"\n'));
    const managers = await ok([
      'get',
      'configmap',
      'settings',
      '--show-managed-fields',
      '-o',
      'jsonpath={.metadata.managedFields[*].manager}',
    ]);
    expect(managers).toBe('other');
    expect(await ok(['get', 'configmap', 'settings', '-o', 'jsonpath={.data.a}'])).toBe('20');
  });

  it('lets two managers share a list map', async () => {
    const deployment = (container: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: ${container}
        image: ${container}:1
        ports:
        - containerPort: 80
`;
    await ok(['apply', '--server-side', '--field-manager=alice', '-f', '-'], deployment('a'));
    await ok(['apply', '--server-side', '--field-manager=bob', '-f', '-'], deployment('b'));
    const names = () =>
      ok(['get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers[*].name}']);
    expect(await names()).toBe('a b');
    // Alice's configuration without her container: it goes, Bob's stays.
    await ok(
      ['apply', '--server-side', '--field-manager=alice', '-f', '-'],
      deployment('b').replace('image: b:1\n        ports:\n        - containerPort: 80\n', ''),
    );
    expect(await names()).toBe('b');
  });

  it('applies a custom resource', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { binary, input: CRD });
    await ok(['wait', '--for', 'condition=Established', 'crd/gadgets.ssa.tkube.dev']);
    const gadget = (parts: string) =>
      `apiVersion: ssa.tkube.dev/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  size: 3\n  parts:\n${parts}`;
    expect(await ok(['apply', '--server-side', '-f', '-'], gadget('  - {name: alpha, count: 1}\n'))).toBe(
      'gadget.ssa.tkube.dev/g serverside-applied',
    );
    await ok(
      ['apply', '--server-side', '--field-manager=other', '-f', '-'],
      gadget('  - {name: beta, count: 2}\n'),
    );
    expect(await ok(['get', 'gadget', 'g', '-o', 'jsonpath={.spec.parts[*].name}'])).toBe('alpha beta');
    const conflict = await run(
      ['apply', '--server-side', '--field-manager=other', '-f', '-'],
      gadget('  - {name: alpha, count: 5}\n'),
    );
    expect(conflict.stderr).toContain(
      'Apply failed with 1 conflict: conflict with "kubectl": .spec.parts[name="alpha"].count',
    );
  });

  it('takes over an object made by client-side apply', async () => {
    const secret = (value: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: migrated\ndata:\n  key: "${value}"\n`;
    expect(await ok(['apply', '-f', '-'], secret('one'))).toBe('configmap/migrated created');
    const managers = () =>
      ok([
        'get',
        'configmap',
        'migrated',
        '--show-managed-fields',
        '-o',
        'jsonpath={range .metadata.managedFields[*]}{.manager}/{.operation} {end}',
      ]);
    expect((await managers()).trim()).toBe('kubectl-client-side-apply/Update');
    expect(await ok(['apply', '--server-side', '-f', '-'], secret('two'))).toBe(
      'configmap/migrated serverside-applied',
    );
    expect(await ok(['get', 'configmap', 'migrated', '-o', 'jsonpath={.data.key}'])).toBe('two');
    expect((await managers()).split(' ')).toContain('kubectl/Apply');
    const annotation = await ok([
      'get',
      'configmap',
      'migrated',
      '-o',
      'jsonpath={.metadata.annotations.kubectl\\.kubernetes\\.io/last-applied-configuration}',
    ]);
    expect(JSON.parse(annotation)).toMatchObject({ data: { key: 'two' } });
  });

  const managersWithVersions = (resource: string) =>
    ok([
      'get',
      resource,
      '--show-managed-fields',
      '-o',
      'jsonpath={range .metadata.managedFields[*]}{.manager}@{.apiVersion} {end}',
    ]).then((text) => text.trim().split(' ').sort().join(' '));

  it('compares a manager recorded at autoscaling/v1 with a v2 apply of the same HPA', async () => {
    const v1 = `apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
  targetCPUUtilizationPercentage: 50
`;
    const v2 = `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
`;
    await ok(['apply', '--server-side', '--field-manager=old', '-f', '-'], v1);
    const refused = await run(['apply', '--server-side', '--field-manager=new', '-f', '-'], v2);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      'Apply failed with 1 conflict: conflict with "old": .spec.targetCPUUtilizationPercentage',
    );
    await ok(['apply', '--server-side', '--field-manager=new', '--force-conflicts', '-f', '-'], v2);
    expect(await managersWithVersions('horizontalpodautoscalers.v2.autoscaling/web')).toBe(
      'new@autoscaling/v2 old@autoscaling/v1',
    );
    const cpu = await ok([
      'get',
      'horizontalpodautoscalers.v1.autoscaling',
      'web',
      '-o',
      'jsonpath={.spec.targetCPUUtilizationPercentage}',
    ]);
    expect(cpu).toBe('70');
    // Back at v1, "old" now conflicts on the field as the v2 manager holds it.
    const back = await run(['apply', '--server-side', '--field-manager=old', '-f', '-'], v1);
    expect(back.stderr).toContain('Apply failed with 1 conflict: conflict with "new": .spec.metrics');
  });

  it('compares a manager recorded at one CRD version with an apply at another', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { binary, input: CRD_TWO_VERSIONS });
    await ok(['wait', '--for', 'condition=Established', 'crd/widgets.ssa.tkube.dev']);
    const widget = (version: string, count: number) =>
      `apiVersion: ssa.tkube.dev/${version}\nkind: Widget\nmetadata:\n  name: w\nspec:\n  parts:\n  - {name: a, count: ${count}}\n`;
    await ok(['apply', '--server-side', '--field-manager=one', '-f', '-'], widget('v1', 1));
    const refused = await run(['apply', '--server-side', '--field-manager=two', '-f', '-'], widget('v2', 5));
    expect(refused.stderr).toContain(
      'Apply failed with 1 conflict: conflict with "one": .spec.parts[name="a"].count',
    );
    await ok(
      ['apply', '--server-side', '--field-manager=two', '--force-conflicts', '-f', '-'],
      widget('v2', 5),
    );
    expect(await managersWithVersions('widgets.v2.ssa.tkube.dev/w')).toBe(
      'one@ssa.tkube.dev/v1 two@ssa.tkube.dev/v2',
    );
  });

  it('moves replicas recorded at one CRD version to a scale write through another', async () => {
    await cluster.kubectl(['apply', '-f', '-'], { binary, input: CRD_TWO_VERSIONS });
    await ok(['wait', '--for', 'condition=Established', 'crd/widgets.ssa.tkube.dev']);
    const scaled = `apiVersion: ssa.tkube.dev/v1\nkind: Widget\nmetadata:\n  name: scaled\nspec:\n  replicas: 1\n`;
    await ok(['apply', '--server-side', '--field-manager=one', '-f', '-'], scaled);
    await ok([
      'patch',
      'widgets.v2.ssa.tkube.dev',
      'scaled',
      '--subresource=scale',
      '--type=merge',
      '--field-manager=scaler',
      '-p',
      '{"spec":{"replicas":3}}',
    ]);
    const entries = JSON.parse(
      await ok([
        'get',
        'widgets.v2.ssa.tkube.dev',
        'scaled',
        '--show-managed-fields',
        '-o',
        'jsonpath={.metadata.managedFields}',
      ]),
    ) as { manager: string; apiVersion: string; fieldsV1?: unknown; subresource?: string }[];
    // "one" no longer owns replicas (its entry, left empty, goes); the scaler owns them at v2.
    expect(entries.map((e) => [e.manager, e.apiVersion, e.subresource, e.fieldsV1])).toEqual([
      ['scaler', 'ssa.tkube.dev/v2', 'scale', { 'f:spec': { 'f:replicas': {} } }],
    ]);
  });
});
