// kube-aggregator's APIServiceAvailabilityController: the `Available` condition of each APIService
// with upstream's reasons and messages. Local ones are always available; a service-backed one
// needs its service and port, endpoints with an address on that port, and an answer in the 2xx
// range to GET /apis/<group>/<version> within five seconds.
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { KubeObject } from '../../api/object.js';
import type { APIService, APIServiceCondition } from '../../api/types/apiregistration-v1.generated.js';
import type { Endpoints, Service } from '../../api/types/core-v1.generated.js';
import type { APIResourceList } from '../../api/types/meta-v1.generated.js';
import { type BackendDeps, ResolveError, resolveEndpoint, sendToApiService } from './backend.js';

/** The identity the discovery check asks as (through the front-proxy headers). */
const CHECK_USER = 'system:kube-aggregator';
const CHECK_GROUPS = ['system:masters'];
export const DISCOVERY_CHECK_TIMEOUT_MS = 5_000;

export type AvailableCondition = Omit<APIServiceCondition, 'lastTransitionTime'>;

/** The condition, and the server's APIResourceList when its discovery check passed. */
export interface Availability {
  readonly condition: AvailableCondition;
  readonly resourceList?: APIResourceList;
}

/** A discovery answer larger than this is not kept (the proxy streams any size). */
const DISCOVERY_BODY_LIMIT = 4 * 1024 * 1024;

function unavailable(reason: string, message: string): AvailableCondition {
  return { type: 'Available', status: 'False', reason, message };
}

/** What the condition should say now. */
export async function availabilityOf(deps: BackendDeps, apiService: APIService): Promise<Availability> {
  const settled = await serviceCondition(deps, apiService);
  if (settled) return { condition: settled };
  const check = await discoveryCheck(deps, apiService);
  if (typeof check === 'string') return { condition: unavailable('FailedDiscoveryCheck', check) };
  return {
    condition: { type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' },
    ...(check && { resourceList: check }),
  };
}

/**
 * The condition that needs no discovery check: a Local APIService's, or a service, port or
 * endpoint missing. Undefined when the server is there to be asked.
 */
async function serviceCondition(
  deps: BackendDeps,
  apiService: APIService,
): Promise<AvailableCondition | undefined> {
  const ref = apiService.spec?.service;
  if (!ref) {
    return {
      type: 'Available',
      status: 'True',
      reason: 'Local',
      message: 'Local APIServices are always available',
    };
  }
  const namespace = ref.namespace ?? '';
  const name = ref.name ?? '';
  const port = ref.port ?? 443;
  const service = (await deps.services().find(namespace, name)) as KubeObject as Service | undefined;
  if (!service) return unavailable('ServiceNotFound', `service/${name} in "${namespace}" is not present`);
  if (service.spec?.type !== 'ExternalName') {
    const servicePort = service.spec?.ports?.find((candidate) => candidate.port === port);
    if (!servicePort) {
      return unavailable(
        'ServicePortError',
        `service/${name} in "${namespace}" is not listening on port ${port}`,
      );
    }
    const endpoints = (await deps.endpoints().find(namespace, name)) as KubeObject as Endpoints | undefined;
    if (!endpoints) {
      return unavailable('EndpointsNotFound', `cannot find endpoints for service/${name} in "${namespace}"`);
    }
    const portName = servicePort.name ?? '';
    const hasAddress = (endpoints.subsets ?? []).some(
      (subset) =>
        (subset.addresses?.length ?? 0) > 0 && (subset.ports ?? []).some((p) => (p.name ?? '') === portName),
    );
    if (!hasAddress) {
      return unavailable(
        'MissingEndpoints',
        `endpoints for service/${name} in "${namespace}" have no addresses with port name "${portName}"`,
      );
    }
  }
  return undefined;
}

/**
 * The discovery check's failure text, or the server's answer (its APIResourceList, undefined when
 * it is not one) when it answered in time with 2xx.
 */
async function discoveryCheck(
  deps: BackendDeps,
  apiService: APIService,
): Promise<string | APIResourceList | undefined> {
  let url: URL;
  try {
    url = await resolveEndpoint(deps, apiService);
  } catch (error) {
    if (error instanceof ResolveError) return error.message;
    throw error;
  }
  url.pathname = `/apis/${apiService.spec?.group ?? ''}/${apiService.spec?.version ?? ''}`;
  const abort = new EventEmitter();
  const timer = setTimeout(() => abort.emit('close'), DISCOVERY_CHECK_TIMEOUT_MS);
  let timedOut = false;
  abort.once('close', () => {
    timedOut = true;
  });
  try {
    const response = await sendToApiService(deps, apiService, {
      url,
      method: 'GET',
      headers: { 'x-remote-user': CHECK_USER, 'x-remote-group': CHECK_GROUPS },
      signal: abort,
    });
    const status = response.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      response.resume();
      return `failing or missing response from ${url.href}: bad status from ${url.href}: ${status}`;
    }
    return await readResourceList(response);
  } catch (error) {
    if (timedOut)
      return `failing or missing response from ${url.href}: Get "${url.href}": context deadline exceeded`;
    return `failing or missing response from ${url.href}: Get "${url.href}": ${(error as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
}

async function readResourceList(response: IncomingMessage): Promise<APIResourceList | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > DISCOVERY_BODY_LIMIT) {
      response.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  try {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Partial<APIResourceList>;
    return body.kind === 'APIResourceList' && Array.isArray(body.resources)
      ? (body as APIResourceList)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The status with `condition` set; lastTransitionTime moves only when the status changes. */
export function withCondition(apiService: APIService, condition: AvailableCondition, now: Date): APIService {
  const conditions = apiService.status?.conditions ?? [];
  const current = conditions.find((c) => c.type === 'Available');
  const lastTransitionTime =
    current && current.status === condition.status && current.lastTransitionTime
      ? current.lastTransitionTime
      : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const next = { ...condition, lastTransitionTime };
  return {
    ...apiService,
    status: {
      ...apiService.status,
      conditions: [...conditions.filter((c) => c.type !== 'Available'), next],
    },
  };
}

/** Whether the stored condition already says this. */
export function conditionUnchanged(apiService: APIService, condition: AvailableCondition): boolean {
  const current = apiService.status?.conditions?.find((c) => c.type === 'Available');
  return (
    current?.status === condition.status &&
    current.reason === condition.reason &&
    current.message === condition.message
  );
}
