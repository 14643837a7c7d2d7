// The fixtures are request bodies kubectl 1.33.1 sent (as application/vnd.kubernetes.protobuf) to a
// recording server, e.g. `kubectl create deployment web --image=nginx --replicas=3 --port=80`; the .json
// beside each is what the same command printed with `-o json --dry-run=client`, i.e. the JSON kubectl
// would send for the same Go object. Decoding the body must give exactly that object.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeKubernetesProtobuf } from '../../../src/apiserver/protobuf/index.js';

const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

/** Same members in the same order, except that apiVersion and kind come first. */
function expectKubectlJson(actual: Record<string, unknown>, expected: Record<string, unknown>): void {
  const { apiVersion, kind, ...rest } = expected;
  expect(JSON.stringify(actual)).toBe(JSON.stringify({ apiVersion, kind, ...rest }));
}

describe('bodies kubectl sends', () => {
  it.each([
    [
      'configmap',
      'create configmap app-config --from-literal=a=b --from-file=app.properties --from-file=blob.bin',
    ],
    [
      'secret',
      'create secret generic db-secret --from-literal=password=s3cr3t --from-literal=empty= --from-file=blob.bin',
    ],
    ['secret-docker', 'create secret docker-registry regcred --docker-server=... --docker-username=u ...'],
    ['namespace', 'create namespace n'],
    ['deployment', 'create deployment web --image=nginx --replicas=3 --port=80'],
    ['deployment-multi', 'create deployment multi --image=nginx --image=redis:7'],
    ['service-nodeport', 'create service nodeport web --tcp=80:8080'],
    ['service-clusterip', 'create service clusterip headless --clusterip=None'],
    ['job', 'create job j --image=busybox'],
    ['cronjob', "create cronjob nightly --image=busybox --schedule='0 3 * * *' -- echo hello"],
    ['quota', 'create quota q --hard=cpu=1500m,memory=2Gi,pods=10'],
    ['role', 'create role reader --verb=get,list --resource=pods,configmaps'],
    ['clusterrolebinding', 'create clusterrolebinding admins --clusterrole=cluster-admin --user=alice ...'],
    ['ingress', "create ingress web --rule='example.com/*=web:80,tls=cert'"],
    ['pdb', 'create pdb web --selector=app=web --min-available=50%'],
    ['priorityclass', 'create priorityclass high --value=1000 --description=important ...'],
    ['serviceaccount', 'create serviceaccount builder'],
  ])('%s (kubectl %s)', (name) => {
    const expected = JSON.parse(fixture(`${name}.json`).toString('utf8')) as Record<string, unknown>;
    expectKubectlJson(decodeKubernetesProtobuf(fixture(`${name}.bin`)), expected);
  });

  it('keeps binary ConfigMap and Secret values as base64', () => {
    const configMap = decodeKubernetesProtobuf(fixture('configmap.bin'));
    expect(configMap.binaryData).toEqual({
      'blob.bin': Buffer.from('000102fffe2062696e61727920' + '80', 'hex').toString('base64'),
    });
    const secret = decodeKubernetesProtobuf(fixture('secret.bin'));
    expect(secret.data).toEqual({
      'blob.bin': 'AAEC//4gYmluYXJ5IIA=',
      empty: '',
      password: Buffer.from('s3cr3t').toString('base64'),
    });
  });

  it('decodes the TokenRequest of `kubectl create token builder --duration=1h --audience=api`', () => {
    expect(JSON.stringify(decodeKubernetesProtobuf(fixture('token.bin')))).toBe(
      JSON.stringify({
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        metadata: { creationTimestamp: null },
        spec: { audiences: ['api'], expirationSeconds: 3600, boundObjectRef: null },
        status: { token: '', expirationTimestamp: null },
      }),
    );
  });

  it('decodes the SelfSubjectAccessReview of `kubectl auth can-i create deployments.apps -n team`', () => {
    expect(JSON.stringify(decodeKubernetesProtobuf(fixture('can-i.bin')))).toBe(
      JSON.stringify({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        metadata: { creationTimestamp: null },
        spec: {
          resourceAttributes: { namespace: 'team', verb: 'create', group: 'apps', resource: 'deployments' },
        },
        status: { allowed: false },
      }),
    );
  });
});
