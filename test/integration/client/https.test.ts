// The REST client over HTTPS against a real control plane: credentials from the kubeconfig
// tkube wrote, a watch that sees what kubectl changes, and a service-account token client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SelfSubjectReview } from '../../../src/api/types/authentication-v1.generated.js';
import type { ConfigMap, Namespace, Secret } from '../../../src/api/types/core-v1.generated.js';
import { CONFIG_MAPS, findBuiltinResource, NAMESPACES, SECRETS } from '../../../src/client/resources.js';
import { ApiError, isForbidden, isNotFound } from '../../../src/client/rest/index.js';
import { clientFromKubeconfig, httpsClient, readKubeconfig } from '../../../src/client/transports.js';
import type { Client, WatchEvent } from '../../../src/client/types.js';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;
let client: Client;

beforeAll(async () => {
  cluster = await startTestCluster('client-https');
  client = clientFromKubeconfig(cluster.kubeconfig, undefined, 'https-test');
}, 60_000);

afterAll(async () => {
  await client?.close();
  await cluster?.down();
});

async function kubectl(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, { input });
  expect(result.exitCode, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

describe('https client', () => {
  it('authenticates with the kubeconfig credentials', async () => {
    const reviews = findBuiltinResource('authentication.k8s.io', 'v1', 'selfsubjectreviews')!;
    const review = await client.resource<SelfSubjectReview>(reviews).create({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    });
    expect(review.status?.userInfo?.username).toBe(client.identity);
    expect(review.status?.userInfo?.groups).toContain('system:masters');
    const namespaces = await client.resource<Namespace>(NAMESPACES).list('');
    expect(namespaces.items.map((ns) => ns.metadata?.name)).toContain('kube-system');
  });

  it('watches a change kubectl makes', async () => {
    const configMaps = client.resource<ConfigMap>(CONFIG_MAPS);
    const { metadata } = await configMaps.list('default');
    const controller = new AbortController();
    const seen: WatchEvent<ConfigMap>[] = [];
    const watching = (async () => {
      for await (const event of configMaps.watch('default', {
        resourceVersion: metadata.resourceVersion,
        signal: controller.signal,
      })) {
        if (event.type !== 'ERROR' && event.object.metadata?.name !== 'from-kubectl') continue;
        seen.push(event);
        if (seen.length === 2) controller.abort();
      }
    })();
    await kubectl(['create', 'configmap', 'from-kubectl', '--from-literal=a=1']);
    await kubectl(['label', 'configmap', 'from-kubectl', 'step=two']);
    await watching;
    expect(seen.map((event) => event.type)).toEqual(['ADDED', 'MODIFIED']);
    const [, modified] = seen;
    expect(modified!.type === 'MODIFIED' && modified!.object.metadata?.labels).toEqual({ step: 'two' });
  });

  it('throws API errors with their Status', async () => {
    const error = await client
      .resource<ConfigMap>(CONFIG_MAPS)
      .get('default', 'absent')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(isNotFound(error)).toBe(true);
    expect((error as ApiError).message).toBe('configmaps "absent" not found');
  });

  it('authenticates with a service-account token', async () => {
    await kubectl(['create', 'serviceaccount', 'reader']);
    const token = (await kubectl(['create', 'token', 'reader'])).trim();
    const { server, ca } = readKubeconfig(cluster.kubeconfig);
    const reader = httpsClient({ server, ca, token, component: 'reader' });
    try {
      expect(reader.identity).toBe('system:serviceaccount:default:reader');
      const error = await reader
        .resource<Secret>(SECRETS)
        .list('default')
        .catch((e: unknown) => e);
      expect(isForbidden(error)).toBe(true);
      expect((error as ApiError).message).toBe(
        'secrets is forbidden: User "system:serviceaccount:default:reader" cannot list resource "secrets" in API group "" in the namespace "default"',
      );
    } finally {
      await reader.close();
    }
  });
});
