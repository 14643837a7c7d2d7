// @kubernetes/client-node asking endpoints that have no Table convertor (reviews, token
// requests, evictions) for a Table: 406, as kube-apiserver answers; the object itself is served.
import {
  ApiException,
  AuthenticationV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  setHeaderOptions,
  type V1Status,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientNodeControlPlane, startClientNodeControlPlane } from '../../support/client-node.js';

let cluster: ClientNodeControlPlane;

beforeAll(async () => {
  cluster = await startClientNodeControlPlane();
}, 30_000);

afterAll(async () => {
  await cluster?.stop();
});

const asTable = setHeaderOptions('Accept', 'application/json;as=Table;v=v1;g=meta.k8s.io');

async function failure(call: Promise<unknown>): Promise<V1Status> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiException) return JSON.parse(error.body as string) as V1Status;
    throw error;
  }
  throw new Error('the call succeeded');
}

describe('endpoints without a Table convertor', () => {
  it('answer a Table request with 406 and serve the object otherwise', async () => {
    const authorization = cluster.kubeConfig.makeApiClient(AuthorizationV1Api);
    const body = { spec: { nonResourceAttributes: { path: '/', verb: 'get' } } };
    const refused = await failure(authorization.createSelfSubjectAccessReview({ body }, asTable));
    expect(refused.code).toBe(406);
    expect(refused.reason).toBe('NotAcceptable');
    const review = await authorization.createSelfSubjectAccessReview({ body });
    expect(review.status?.allowed).toBe(true);

    const authentication = cluster.kubeConfig.makeApiClient(AuthenticationV1Api);
    expect((await failure(authentication.createSelfSubjectReview({ body: {} }, asTable))).code).toBe(406);

    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedPod({
      namespace: 'default',
      body: { metadata: { name: 'evicted' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    });
    const eviction = failure(
      core.createNamespacedPodEviction(
        {
          namespace: 'default',
          name: 'evicted',
          body: { metadata: { name: 'evicted', namespace: 'default' } },
        },
        asTable,
      ),
    );
    expect((await eviction).code).toBe(406);
    // The pod is still there: the request was refused before it did anything.
    expect((await core.readNamespacedPod({ namespace: 'default', name: 'evicted' })).metadata?.name).toBe(
      'evicted',
    );
  });
});
