// A real ApiServer on a temporary SQLite store, with the bootstrap policy, for the Node
// authorizer and NodeRestriction tests: objects go through the registry (defaults, validation,
// admission) and the node graph follows them through its store watch.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../../src/api/object.js';
import { ApiServer } from '../../../src/apiserver/api-server.js';
import {
  type AuthorizationResult,
  forbiddenStatus,
  requestAttributes,
} from '../../../src/apiserver/auth/rbac/index.js';
import type { UserInfo } from '../../../src/apiserver/http/types.js';
import { patchSchemaForKind } from '../../../src/apiserver/openapi/patch-schema.js';
import type { ResourceStore } from '../../../src/apiserver/registry/resource-store.js';
import { parseRequestInfo } from '../../../src/apiserver/request-info.js';
import { StatusError } from '../../../src/apiserver/status.js';
import { bootstrapCluster, reconcileBootstrapPolicy } from '../../../src/controlplane/bootstrap.js';
import { SqliteStore } from '../../../src/storage/index.js';

export interface TestApi {
  readonly api: ApiServer;
  readonly store: SqliteStore;
  resources(group: string, resource: string): ResourceStore;
  /** Creates an object as the cluster admin would (no node restrictions apply). */
  create(group: string, resource: string, object: KubeObject): Promise<KubeObject>;
  /** Waits until the node graph has seen every write so far. */
  synced(): Promise<void>;
  /** The authorizer chain's answer for a request by method, path and query, like kube-apiserver's filter. */
  decide(user: UserInfo, method: string, path: string, query?: string): AuthorizationResult;
  /** The 403 Status message a denied request gets, or 'allowed'. */
  outcome(user: UserInfo, method: string, path: string, query?: string): string;
  stop(): Promise<void>;
}

/** One server per test file: start it in beforeAll, stop it in afterAll. */
export async function startTestApi(): Promise<TestApi> {
  const dir = mkdtempSync(join(tmpdir(), 'tkube-node-authz-'));
  const store = SqliteStore.open({ path: join(dir, 'state.db'), maintenanceIntervalMs: 3_600_000 });
  const api = new ApiServer({ store, patchSchemaFor: patchSchemaForKind });
  await bootstrapCluster(api, 6443);
  await reconcileBootstrapPolicy(api);
  await api.start();
  const resources = (group: string, resource: string) => api.storeForResource(group, resource)!;
  const decide = (user: UserInfo, method: string, path: string, query = '') => {
    const params = new URLSearchParams(query);
    return api.authorizer.authorize(requestAttributes(parseRequestInfo(method, path, params), user, params));
  };
  return {
    api,
    store,
    resources,
    create: (group, resource, object) =>
      resources(group, resource).create(object.metadata?.namespace ?? '', object),
    synced: () => api.nodeGraph.synced(),
    decide,
    outcome(user, method, path, query = '') {
      const result = decide(user, method, path, query);
      if (result.decision === 'allow') return 'allowed';
      const params = new URLSearchParams(query);
      const attributes = requestAttributes(parseRequestInfo(method, path, params), user, params);
      return forbiddenStatus(attributes, result.reason).message;
    },
    async stop() {
      api.stop();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function nodeUser(name: string): UserInfo {
  return { name: `system:node:${name}`, groups: ['system:nodes', 'system:authenticated'] };
}

export function pod(
  namespace: string,
  name: string,
  node: string,
  spec: Record<string, unknown> = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: {
      nodeName: node || undefined,
      automountServiceAccountToken: false,
      containers: [{ name: 'app', image: 'busybox' }],
      ...spec,
    },
  };
}

export function named(
  kind: string,
  namespace: string,
  name: string,
  extra: Record<string, unknown> = {},
): KubeObject {
  return { apiVersion: 'v1', kind, metadata: { name, ...(namespace ? { namespace } : {}) }, ...extra };
}

/** The StatusError a promise rejects with. */
export async function rejection(promise: Promise<unknown>): Promise<StatusError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof StatusError)) throw new Error(`expected a StatusError, got ${String(error)}`);
  return error;
}
