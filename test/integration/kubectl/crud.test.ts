// Real kubectl against `tkube up --nodes 0`: the everyday commands on namespaces, configmaps,
// secrets, deployments, services and pods, and the output and errors users see.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readKubeconfig } from '../../../src/client/transports.js';
import { kubectlRelease, startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;
const scratch = mkdtempSync(join(tmpdir(), 'tkube-kubectl-'));

beforeAll(async () => {
  // The release the issue names, not whichever one the PATH's kubectl picks.
  cluster = await startTestCluster('crud', { kubectl: kubectlRelease('1.33') });
}, 60_000);

afterAll(async () => {
  await cluster?.down();
});

const MANIFEST = `
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
  labels: {app: web, tier: front}
data:
  mode: dev
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: shop
stringData:
  password: s3cret
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports: [{containerPort: 80}]
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: shop
spec:
  type: ClusterIP
  selector: {app: web}
  ports: [{port: 80, targetPort: 80, protocol: TCP}]
---
apiVersion: v1
kind: Pod
metadata:
  name: solo
  namespace: shop
  labels: {app: solo}
spec:
  containers:
  - name: main
    image: busybox:1.36
    command: ["sleep", "3600"]
`;

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

describe('kubectl against tkube', () => {
  it('applies a manifest and reads every object back', async () => {
    const out = await ok(['apply', '-f', '-'], MANIFEST);
    expect(out.split('\n')).toEqual([
      'namespace/shop created',
      'configmap/settings created',
      'secret/creds created',
      'deployment.apps/web created',
      'service/web created',
      'pod/solo created',
    ]);
    const names = await ok([
      'get',
      'configmaps,secrets,deployments,services,pods',
      '-n',
      'shop',
      '-o',
      'name',
    ]);
    expect(names.split('\n')).toEqual(
      expect.arrayContaining([
        'configmap/settings',
        'secret/creds',
        'deployment.apps/web',
        'service/web',
        'pod/solo',
      ]),
    );
    const secret = JSON.parse(await ok(['get', 'secret', 'creds', '-n', 'shop', '-o', 'json'])) as {
      data?: Record<string, string>;
    };
    expect(Buffer.from(secret.data?.password ?? '', 'base64').toString()).toBe('s3cret');
    const service = JSON.parse(await ok(['get', 'svc', 'web', '-n', 'shop', '-o', 'json'])) as {
      spec: { clusterIP: string };
    };
    expect(service.spec.clusterIP).toMatch(/^10\.96\.\d+\.\d+$/);
  });

  it('prints tables, wide tables, jsonpath and custom columns', async () => {
    const table = await ok(['get', 'deployments', '-n', 'shop']);
    expect(table.split('\n')[0]).toMatch(/^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/);
    // The deployment controller created both pods; no kubelet runs them, so none is available.
    expect(table).toMatch(/^web\s+0\/2\s+2\s+0\s+\d+s$/m);
    const wide = await ok(['get', 'deployments', '-n', 'shop', '-o', 'wide']);
    expect(wide.split('\n')[0]).toMatch(/CONTAINERS\s+IMAGES\s+SELECTOR$/);
    expect(wide).toMatch(/nginx\s+nginx:1\.27\s+app=web/);
    const pods = await ok(['get', 'pods', '-n', 'shop']);
    expect(pods.split('\n')[0]).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    expect(pods).toMatch(/^solo\s+0\/1\s+Pending\s+0\s+\d+s$/m);
    const jsonpath = await ok(['get', 'cm', 'settings', '-n', 'shop', '-o', 'jsonpath={.data.mode}']);
    expect(jsonpath).toBe('dev');
    const columns = await ok([
      'get',
      'deploy',
      '-n',
      'shop',
      '-o',
      'custom-columns=NAME:.metadata.name,IMAGE:.spec.template.spec.containers[0].image',
    ]);
    expect(columns.split('\n')).toEqual([
      expect.stringMatching(/^NAME\s+IMAGE$/),
      expect.stringMatching(/^web\s+nginx:1\.27$/),
    ]);
    const yaml = await ok(['get', 'cm', 'settings', '-n', 'shop', '-o', 'yaml']);
    expect(yaml).toMatch(/^ {2}resourceVersion: "\d+"$/m);
    expect(yaml).toMatch(/^ {2}uid: [0-9a-f-]{36}$/m);
  });

  it('describes configmaps, deployments, pods, services, namespaces and secrets', async () => {
    const out = await ok(['describe', 'configmap', 'settings', '-n', 'shop']);
    expect(out).toMatch(/^Name:\s+settings$/m);
    expect(out).toMatch(/^Namespace:\s+shop$/m);
    expect(out).toMatch(/^Labels:\s+app=web$/m);
    expect(out).toContain('mode:\n----\ndev');
    const deployment = await ok(['describe', 'deployment', 'web', '-n', 'shop']);
    expect(deployment).toMatch(
      /^Replicas:\s+2 desired \| 2 updated \| 2 total \| 0 available \| 2 unavailable$/m,
    );
    expect(deployment).toMatch(/^RollingUpdateStrategy:\s+25% max unavailable, 25% max surge$/m);
    const pod = await ok(['describe', 'pod', 'solo', '-n', 'shop']);
    expect(pod).toMatch(/^Status:\s+Pending$/m);
    expect(pod).toMatch(/^QoS Class:\s+BestEffort$/m);
    const service = await ok(['describe', 'service', 'web', '-n', 'shop']);
    expect(service).toMatch(/^IP Families:\s+IPv4$/m);
    const namespace = await ok(['describe', 'namespace', 'shop']);
    expect(namespace).toMatch(/^Labels:\s+kubernetes\.io\/metadata\.name=shop$/m);
    expect(namespace).toMatch(/^Status:\s+Active$/m);
    const secret = await ok(['describe', 'secret', 'creds', '-n', 'shop']);
    expect(secret).toMatch(/^password:\s+6 bytes$/m);
  });

  it('labels, annotates, scales and patches with all three patch types', async () => {
    expect(await ok(['label', 'cm', 'settings', '-n', 'shop', 'owner=team-a'])).toBe(
      'configmap/settings labeled',
    );
    expect(await ok(['annotate', 'cm', 'settings', '-n', 'shop', 'note=hello'])).toBe(
      'configmap/settings annotated',
    );
    expect(await ok(['scale', 'deployment', 'web', '-n', 'shop', '--replicas=4'])).toBe(
      'deployment.apps/web scaled',
    );
    expect(
      await ok(['patch', 'cm', 'settings', '-n', 'shop', '--type=merge', '-p', '{"data":{"a":"1"}}']),
    ).toBe('configmap/settings patched');
    await ok([
      'patch',
      'cm',
      'settings',
      '-n',
      'shop',
      '--type=json',
      '-p',
      '[{"op":"add","path":"/data/b","value":"2"}]',
    ]);
    await ok([
      'patch',
      'deployment',
      'web',
      '-n',
      'shop',
      '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}',
    ]);
    const cm = JSON.parse(await ok(['get', 'cm', 'settings', '-n', 'shop', '-o', 'json'])) as {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      data: Record<string, string>;
    };
    expect(cm.metadata.labels.owner).toBe('team-a');
    expect(cm.metadata.annotations.note).toBe('hello');
    expect(cm.data).toEqual({ mode: 'dev', a: '1', b: '2' });
    const deploy = JSON.parse(await ok(['get', 'deploy', 'web', '-n', 'shop', '-o', 'json'])) as {
      metadata: { generation: number };
      spec: {
        replicas: number;
        template: { spec: { containers: { name: string; image: string; ports: unknown[] }[] } };
      };
    };
    expect(deploy.spec.replicas).toBe(4);
    // Strategic merge: the container matched by name, its other fields kept.
    expect(deploy.spec.template.spec.containers).toHaveLength(1);
    expect(deploy.spec.template.spec.containers[0]).toMatchObject({ name: 'nginx', image: 'nginx:1.28' });
    expect(deploy.spec.template.spec.containers[0]!.ports).toHaveLength(1);
    expect(deploy.metadata.generation).toBe(3);
  });

  it('labels, annotates and patches namespaces, secrets, services, pods and deployments', async () => {
    for (const target of ['namespace/shop', 'secret/creds', 'service/web', 'pod/solo', 'deployment/web']) {
      const namespace = target.startsWith('namespace/') ? [] : ['-n', 'shop'];
      const shown = target.replace('deployment/', 'deployment.apps/');
      expect(await ok(['label', target, ...namespace, 'checked=yes'])).toBe(`${shown} labeled`);
      expect(await ok(['annotate', target, ...namespace, 'reviewed-by=ops'])).toBe(`${shown} annotated`);
      const labels = await ok(['get', target, ...namespace, '-o', 'jsonpath={.metadata.labels.checked}']);
      expect(labels).toBe('yes');
    }
    // The service's ports merge by port number (its strategic merge key). A new port goes first
    // and, with two ports, each needs a name: Kubernetes refuses the unnamed old one at index 1.
    const patchService = ['patch', 'service', 'web', '-n', 'shop', '-p'];
    const unnamed = await cluster.kubectl([
      ...patchService,
      '{"spec":{"ports":[{"name":"metrics","port":9090,"targetPort":9090}]}}',
    ]);
    expect(unnamed.stderr).toBe('The Service "web" is invalid: spec.ports[1].name: Required value');
    await ok([
      ...patchService,
      '{"spec":{"ports":[{"name":"metrics","port":9090,"targetPort":9090},{"name":"http","port":80}]}}',
    ]);
    await ok([
      'patch',
      'secret',
      'creds',
      '-n',
      'shop',
      '--type=merge',
      '-p',
      '{"stringData":{"user":"admin"}}',
    ]);
    await ok([
      'patch',
      'pod',
      'solo',
      '-n',
      'shop',
      '--type=json',
      '-p',
      '[{"op":"replace","path":"/spec/containers/0/image","value":"busybox:1.37"}]',
    ]);
    const ports = await ok(['get', 'svc', 'web', '-n', 'shop', '-o', 'jsonpath={.spec.ports[*].name}']);
    expect(ports).toBe('metrics http');
    const user = await ok(['get', 'secret', 'creds', '-n', 'shop', '-o', 'jsonpath={.data.user}']);
    expect(Buffer.from(user, 'base64').toString()).toBe('admin');
    expect(await ok(['get', 'pod', 'solo', '-n', 'shop', '-o', 'jsonpath={.spec.containers[0].image}'])).toBe(
      'busybox:1.37',
    );
    // A pod's other fields may not change: kubectl shows the server's Invalid as it reads against Kubernetes.
    const refused = await cluster.kubectl([
      'patch',
      'pod',
      'solo',
      '-n',
      'shop',
      '--type=merge',
      '-p',
      '{"spec":{"restartPolicy":"Never"}}',
    ]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(
      /^The Pod "solo" is invalid: spec: Forbidden: pod updates may not change fields other than/,
    );
  });

  it('updates with apply (strategic merge), shows diff, replaces and edits', async () => {
    const changed = MANIFEST.replace('mode: dev', 'mode: prod');
    const diff = await cluster.kubectl(['diff', '-f', '-'], { input: changed });
    expect(diff.exitCode, diff.stderr).toBe(1);
    expect(diff.stdout).toMatch(/^-\s+mode: dev$/m);
    expect(diff.stdout).toMatch(/^\+\s+mode: prod$/m);
    const applied = await ok(['apply', '-f', '-'], changed);
    expect(applied).toContain('configmap/settings configured');
    expect(applied).toContain('namespace/shop unchanged');
    expect(await ok(['get', 'cm', 'settings', '-n', 'shop', '-o', 'jsonpath={.data.mode}'])).toBe('prod');

    const current = await ok(['get', 'cm', 'settings', '-n', 'shop', '-o', 'yaml']);
    const replaced = await ok(['replace', '-f', '-'], current.replace('mode: prod', 'mode: replaced'));
    expect(replaced).toBe('configmap/settings replaced');
    // The same stale resourceVersion again: the Conflict users know.
    const stale = await cluster.kubectl(['replace', '-f', '-'], {
      input: current.replace('mode: prod', 'mode: again'),
    });
    expect(stale.exitCode).not.toBe(0);
    expect(stale.stderr).toContain(
      'Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on configmaps "settings": the object has been modified; please apply your changes to the latest version and try again',
    );

    const editor = join(scratch, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/mode: replaced/mode: edited/" "$1"\n');
    chmodSync(editor, 0o755);
    const edited = await cluster.kubectl(['edit', 'cm', 'settings', '-n', 'shop'], {
      env: { EDITOR: editor },
    });
    expect(edited.stdout, edited.stderr).toBe('configmap/settings edited');
    expect(await ok(['get', 'cm', 'settings', '-n', 'shop', '-o', 'jsonpath={.data.mode}'])).toBe('edited');
  });

  it('creates with the imperative generators, which send protobuf bodies', async () => {
    expect(await ok(['create', 'configmap', 'gen', '-n', 'shop', '--from-literal=a=b'])).toBe(
      'configmap/gen created',
    );
    expect(await ok(['create', 'secret', 'generic', 'gen', '-n', 'shop', '--from-literal=p=q'])).toBe(
      'secret/gen created',
    );
    expect(
      await ok(['create', 'deployment', 'gen', '-n', 'shop', '--image=nginx:1.27', '--replicas=3']),
    ).toBe('deployment.apps/gen created');
    expect(await ok(['create', 'service', 'nodeport', 'gen', '-n', 'shop', '--tcp=80:8080'])).toBe(
      'service/gen created',
    );
    const cm = JSON.parse(await ok(['get', 'cm', 'gen', '-n', 'shop', '-o', 'json'])) as {
      data: Record<string, string>;
    };
    expect(cm.data).toEqual({ a: 'b' });
    const deploy = JSON.parse(await ok(['get', 'deploy', 'gen', '-n', 'shop', '-o', 'json'])) as {
      spec: { replicas: number; template: { spec: { containers: { image: string }[] } } };
    };
    expect(deploy.spec.replicas).toBe(3);
    expect(deploy.spec.template.spec.containers[0]!.image).toBe('nginx:1.27');
    const svc = JSON.parse(await ok(['get', 'svc', 'gen', '-n', 'shop', '-o', 'json'])) as {
      spec: { type: string; ports: { port: number; nodePort: number }[] };
    };
    expect(svc.spec.type).toBe('NodePort');
    expect(svc.spec.ports[0]!.nodePort).toBeGreaterThanOrEqual(30000);
    expect(svc.spec.ports[0]!.nodePort).toBeLessThanOrEqual(32767);
    await ok(['delete', 'deploy,svc,cm,secret', 'gen', '-n', 'shop']);
  });

  it('reports NotFound, AlreadyExists and Invalid as Kubernetes does', async () => {
    const missing = await cluster.kubectl(['get', 'pod', 'nope', '-n', 'shop']);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toBe('Error from server (NotFound): pods "nope" not found');
    // kubectl looks the namespace up after a NotFound and reports that instead.
    const noNamespace = await cluster.kubectl(['get', 'cm', 'x', '-n', 'nowhere']);
    expect(noNamespace.stderr).toBe('Error from server (NotFound): namespaces "nowhere" not found');
    const again = await cluster.kubectl(['create', '-f', '-'], { input: MANIFEST });
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain(
      'Error from server (AlreadyExists): error when creating "STDIN": configmaps "settings" already exists',
    );
    expect(again.stderr).toContain(
      'Error from server (AlreadyExists): error when creating "STDIN": deployments.apps "web" already exists',
    );
    const invalid = await cluster.kubectl(['apply', '-f', '-'], {
      input:
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: mismatch, namespace: shop}\nspec:\n' +
        '  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: other}}\n' +
        '    spec:\n      containers: [{name: c, image: nginx}]\n',
    });
    expect(invalid.exitCode).toBe(1);
    expect(invalid.stderr).toBe(
      'The Deployment "mismatch" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
    );
    const badName = await cluster.kubectl(['create', 'configmap', 'BadName', '-n', 'shop']);
    expect(badName.stderr).toContain(
      'ConfigMap "BadName" is invalid: metadata.name: Invalid value: "BadName": a lowercase RFC 1123 subdomain must consist of',
    );
    const wrongNamespace = await cluster.kubectl(['apply', '-f', '-'], {
      input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: ghost}\n',
    });
    expect(wrongNamespace.stderr).toContain('namespaces "ghost" not found');
  });

  it('validates fields: Strict rejects unknown fields, Warn warns and drops them', async () => {
    const strict = await cluster.kubectl(['apply', '-f', '-'], {
      input:
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: typo, namespace: shop}\nspec:\n  replicasx: 3\n' +
        '  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n' +
        '    spec:\n      containers: [{name: c, image: nginx, imagex: y}]\n',
    });
    expect(strict.exitCode).toBe(1);
    expect(strict.stderr).toBe(
      'Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replicasx", unknown field "spec.template.spec.containers[0].imagex"',
    );
    const warned = await cluster.kubectl(['apply', '--validate=warn', '-f', '-'], {
      input:
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: loose, namespace: shop, colour: red}\ndata: {a: "1"}\n',
    });
    expect(warned.exitCode, warned.stderr).toBe(0);
    expect(warned.stderr).toBe('Warning: unknown field "metadata.colour"');
    const stored = JSON.parse(await ok(['get', 'cm', 'loose', '-n', 'shop', '-o', 'json'])) as {
      metadata: object;
    };
    expect(stored.metadata).not.toHaveProperty('colour');
    await ok(['delete', 'cm', 'loose', '-n', 'shop']);
  });

  it('serves HPAs and Events in every version from one stored object', async () => {
    await ok(
      ['apply', '-f', '-'],
      [
        'apiVersion: autoscaling/v1',
        'kind: HorizontalPodAutoscaler',
        'metadata: {name: scaler, namespace: shop}',
        'spec:',
        '  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}',
        '  maxReplicas: 5',
        '  targetCPUUtilizationPercentage: 60',
      ].join('\n'),
    );
    const v2 = JSON.parse(
      await ok(['get', '--raw', '/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers/scaler']),
    ) as {
      apiVersion: string;
      spec: { metrics: unknown[] };
    };
    expect(v2.apiVersion).toBe('autoscaling/v2');
    expect(v2.spec.metrics).toEqual([
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } },
      },
    ]);
    const v1 = JSON.parse(
      await ok(['get', '--raw', '/apis/autoscaling/v1/namespaces/shop/horizontalpodautoscalers/scaler']),
    ) as {
      apiVersion: string;
      spec: { targetCPUUtilizationPercentage: number };
    };
    expect(v1.apiVersion).toBe('autoscaling/v1');
    expect(v1.spec.targetCPUUtilizationPercentage).toBe(60);

    await ok(
      ['create', '-f', '-'],
      [
        'apiVersion: events.k8s.io/v1',
        'kind: Event',
        'metadata: {name: note-1, namespace: shop}',
        'eventTime: "2026-01-01T00:00:00.000000Z"',
        'reportingController: tkube/test',
        'reportingInstance: test-1',
        'action: Testing',
        'reason: Tested',
        'regarding: {kind: Deployment, name: web, namespace: shop}',
        'note: hello from events.k8s.io',
        'type: Normal',
      ].join('\n'),
    );
    const core = JSON.parse(await ok(['get', '--raw', '/api/v1/namespaces/shop/events/note-1'])) as {
      message: string;
      involvedObject: { name: string };
    };
    expect(core.message).toBe('hello from events.k8s.io');
    expect(core.involvedObject.name).toBe('web');
  });

  it('watches with -w and sees changes as table rows', async () => {
    const watching = cluster.kubectl(['get', 'cm', '-n', 'shop', '-w', '--request-timeout=4s']);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await ok(
      ['apply', '-f', '-'],
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: watched, namespace: shop}\ndata: {a: "1"}\n',
    );
    const result = await watching;
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+DATA\s+AGE$/);
    expect(lines.some((line) => /^settings\s+\d+\s+\d+s$/.test(line))).toBe(true);
    expect(lines.some((line) => /^watched\s+1\s+\d+s$/.test(line))).toBe(true);
  });

  it('deletes by name, by label and with --all', async () => {
    await ok(
      ['apply', '-f', '-'],
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: tmp1, namespace: shop, labels: {temp: "yes"}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: tmp2, namespace: shop, labels: {temp: "yes"}}\n',
    );
    expect(await ok(['delete', 'cm', 'watched', '-n', 'shop'])).toBe('configmap "watched" deleted');
    const byLabel = await ok(['delete', 'cm', '-n', 'shop', '-l', 'temp=yes']);
    expect(byLabel.split('\n').sort()).toEqual(['configmap "tmp1" deleted', 'configmap "tmp2" deleted']);
    await ok(['delete', 'secrets', '--all', '-n', 'shop']);
    expect((await cluster.kubectl(['get', 'secrets', '-n', 'shop'])).stderr).toBe(
      'No resources found in shop namespace.',
    );
    expect(await ok(['delete', 'pod', 'solo', '-n', 'shop'])).toBe('pod "solo" deleted');
    // A namespace goes with everything in it.
    await ok(['create', 'namespace', 'scratch']);
    await ok(['create', 'configmap', 'leftover', '-n', 'scratch', '--from-literal=a=1']);
    expect(await ok(['delete', 'namespace', 'scratch', '--wait=true', '--timeout=60s'])).toBe(
      'namespace "scratch" deleted',
    );
    const gone = await cluster.kubectl(['get', 'namespace', 'scratch']);
    expect(gone.stderr).toBe('Error from server (NotFound): namespaces "scratch" not found');
  });

  it('lists API resources and versions, explains fields, reports the version', async () => {
    const resources = await ok(['api-resources']);
    expect(resources).toMatch(/^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
    expect(resources).toMatch(/^configmaps\s+cm\s+v1\s+true\s+ConfigMap$/m);
    expect(resources).toMatch(/^namespaces\s+ns\s+v1\s+false\s+Namespace$/m);
    const versions = (await ok(['api-versions'])).split('\n');
    expect(versions).toEqual(
      expect.arrayContaining(['v1', 'apps/v1', 'batch/v1', 'autoscaling/v2', 'rbac.authorization.k8s.io/v1']),
    );
    const explain = await ok(['explain', 'deployment.spec.replicas']);
    expect(explain).toMatch(/^KIND:\s+Deployment$/m);
    expect(explain).toMatch(/^FIELD: replicas <integer>$/m);
    const version = JSON.parse(await ok(['version', '-o', 'json'])) as {
      serverVersion: { gitVersion: string; minor: string };
      clientVersion: { minor: string };
    };
    expect(version.serverVersion.minor).toBe('33');
    expect(version.clientVersion.minor).toBe('33');
  });

  it('works with kubectl 1.28 for the basics', async () => {
    const binary = kubectlRelease('1.28');
    const list = await cluster.kubectl(['get', 'deploy', '-n', 'shop'], { binary });
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^web\s+0\/2\s/m);
    const created = await cluster.kubectl(['create', '-f', '-'], {
      binary,
      input:
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: old-client, namespace: shop}\ndata: {a: "1"}\n',
    });
    expect(created.stdout, created.stderr).toBe('configmap/old-client created');
    const deleted = await cluster.kubectl(['delete', 'cm', 'old-client', '-n', 'shop'], { binary });
    expect(deleted.stdout, deleted.stderr).toBe('configmap "old-client" deleted');
  });

  it('accepts protobuf and YAML request bodies, and answers 400 to broken ones', async () => {
    // Straight to the server: kubectl sends JSON. The decoders load on first use.
    const credentials = readKubeconfig(cluster.kubeconfig);
    const post = (path: string, body: Buffer | string, contentType: string) =>
      new Promise<{ status: number; json: { message?: string; metadata?: { name?: string } } }>(
        (resolve, reject) => {
          const url = new URL(path, credentials.server);
          const req = httpsRequest(
            {
              host: url.hostname,
              port: url.port,
              path: url.pathname,
              method: 'POST',
              ca: credentials.ca,
              cert: credentials.cert,
              key: credentials.key,
              headers: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) },
            },
            (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (chunk: Buffer) => chunks.push(chunk));
              res.on('end', () =>
                resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString()) }),
              );
            },
          );
          req.on('error', reject);
          req.end(body);
        },
      );
    // The body kubectl 1.33 sends for `kubectl create namespace n` as protobuf (see test/unit/protobuf).
    const protobuf = readFileSync(new URL('../../unit/protobuf/fixtures/namespace.bin', import.meta.url));
    const PROTOBUF = 'application/vnd.kubernetes.protobuf';
    expect(await post('/api/v1/namespaces', protobuf, PROTOBUF)).toMatchObject({
      status: 201,
      json: { metadata: { name: 'n' } },
    });
    expect((await post('/api/v1/namespaces', protobuf.subarray(0, 6), PROTOBUF)).status).toBe(400);

    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  a: "1"\n';
    expect(await post('/api/v1/namespaces/default/configmaps', yaml, 'application/yaml')).toMatchObject({
      status: 201,
      json: { metadata: { name: 'from-yaml' } },
    });
    const broken = await post('/api/v1/namespaces/default/configmaps', 'a: [1,\n', 'application/yaml');
    expect(broken.status).toBe(400);
    expect(broken.json.message).toMatch(/^yaml: /);
  });
});
