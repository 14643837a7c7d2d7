// kube-aggregator in front of the API server: keeps the Local APIServices in step with what is
// served, publishes the request-header settings, runs the availability controller, and sends
// requests for a service-backed group/version (/apis/<group>/<version>/...) to its server with
// the front-proxy identity headers; /apis/<group> of such a group and the legacy /apis list are
// answered from the APIServices.

import type { KubeObject } from '../../api/object.js';
import type { APIService } from '../../api/types/apiregistration-v1.generated.js';
import type { APIGroup, APIGroupList } from '../../api/types/meta-v1.generated.js';
import type { Store } from '../../storage/index.js';
import { StoreFollower } from '../auth/store-follower.js';
import type { APIGroupDiscoveryList, APIVersionDiscovery } from '../discovery/aggregated.js';
import type { ResourceTable } from '../discovery/table.js';
import { sendJson } from '../http/respond.js';
import type { RequestContext } from '../http/types.js';
import type { ResourceStore } from '../registry/resource-store.js';
import { ApiServiceCache } from './api-service-cache.js';
import { publishAuthenticationConfigMap, type RequestHeaderSettings } from './authentication-configmap.js';
import { availabilityOf, conditionUnchanged, withCondition } from './availability.js';
import type { BackendDeps } from './backend.js';
import { type AggregatedVersion, mergeAggregatedDiscovery, versionDiscoveryOf } from './discovery.js';
import { desiredLocalApiServices, reconcileLocalApiServices } from './local-api-services.js';
import { proxyToApiService } from './proxy.js';

/** How often every APIService is checked again (upstream resyncs every 30 s, and on changes). */
const AVAILABILITY_RESYNC_MS = 10_000;

export interface AggregatorDeps extends BackendDeps {
  readonly store: Store;
  readonly apiServices: () => ResourceStore;
  readonly configMaps: () => ResourceStore;
  readonly table: () => ResourceTable;
  readonly onTableChange: (listener: () => void) => void;
  /** The CAs to publish in kube-system/extension-apiserver-authentication. */
  readonly requestHeader: () => Promise<RequestHeaderSettings>;
}

/** A request the aggregator answers instead of the local handlers. */
export type AggregatedRoute =
  | { readonly kind: 'proxy'; readonly apiService: APIService }
  | { readonly kind: 'group'; readonly group: APIGroup };

export class Aggregator {
  readonly cache: ApiServiceCache;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private readonly checking = new Set<string>();
  private readonly recheck = new Set<string>();
  /** The last discovery document of each service-backed APIService, by name. */
  private readonly discovery = new Map<string, APIVersionDiscovery>();
  private localPending?: Promise<void>;
  /** Services and Endpoints followed so that a change re-checks the APIServices naming them. */
  private readonly backendFollowers: StoreFollower[];

  constructor(private readonly deps: AggregatorDeps) {
    this.cache = new ApiServiceCache(deps.store, deps.apiServices().root);
    this.backendFollowers = [deps.services().root, deps.endpoints().root].map(
      (prefix) =>
        new StoreFollower(deps.store, prefix, {
          apply: (events) => {
            for (const event of events) this.backendChanged(event.key.slice(prefix.length));
          },
          relist: async () => {
            for (const apiService of this.cache.all()) this.check(apiService.metadata?.name ?? '');
            return (await deps.store.list(prefix, { limit: 1 })).revision;
          },
        }),
    );
  }

  /** A Service or Endpoints `<namespace>/<name>` changed: its APIServices are checked again. */
  private backendChanged(namespacedName: string): void {
    for (const apiService of this.cache.all()) {
      const ref = apiService.spec?.service;
      if (ref && `${ref.namespace}/${ref.name}` === namespacedName)
        this.check(apiService.metadata?.name ?? '');
    }
  }

  async start(): Promise<void> {
    await this.cache.start();
    const revision = (await this.deps.store.list(this.deps.apiServices().root, { limit: 1 })).revision;
    for (const follower of this.backendFollowers) follower.start(revision);
    await this.syncLocal();
    await publishAuthenticationConfigMap(this.deps.configMaps(), await this.deps.requestHeader());
    this.deps.onTableChange(() => void this.syncLocal().catch(logFailure('local APIServices')));
    this.cache.onChange((name) => this.check(name));
    for (const apiService of this.cache.all()) this.check(apiService.metadata?.name ?? '');
    const resync = () => {
      if (this.stopped) return;
      for (const apiService of this.cache.all()) this.check(apiService.metadata?.name ?? '');
      this.timer = setTimeout(resync, AVAILABILITY_RESYNC_MS);
      this.timer.unref();
    };
    this.timer = setTimeout(resync, AVAILABILITY_RESYNC_MS);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.cache.stop();
    for (const follower of this.backendFollowers) follower.stop();
  }

  private syncLocal(): Promise<void> {
    const run = async () => {
      await reconcileLocalApiServices(
        this.deps.apiServices(),
        desiredLocalApiServices(this.deps.table()),
        this.cache.all(),
      );
    };
    this.localPending = (this.localPending ?? Promise.resolve()).then(run, run);
    return this.localPending;
  }

  /** Re-evaluates one APIService's Available condition; writes it when it changed. */
  private check(name: string): void {
    if (this.stopped || name === '') return;
    if (this.checking.has(name)) {
      // Checked again once the running check ends: it may have read the state before this change.
      this.recheck.add(name);
      return;
    }
    this.checking.add(name);
    void (async () => {
      try {
        const apiService = this.cache.get(name);
        if (!apiService) return;
        const { condition, resourceList } = await availabilityOf(this.deps, apiService);
        const version = apiService.spec?.version ?? '';
        if (resourceList) this.discovery.set(name, versionDiscoveryOf(version, resourceList));
        else if (condition.status === 'True') this.discovery.delete(name);
        const current = this.cache.get(name);
        if (!current || this.stopped || conditionUnchanged(current, condition)) return;
        await this.deps
          .apiServices()
          .guaranteedUpdate(
            '',
            name,
            (latest) =>
              withCondition(latest as APIService, condition, new Date()) as KubeObject as typeof latest,
            { subresource: 'status' },
          );
      } catch (error) {
        if (!this.stopped) logFailure(`availability of ${name}`)(error);
      } finally {
        this.checking.delete(name);
        if (this.recheck.delete(name)) this.check(name);
      }
    })();
  }

  /** Service-backed APIServices, by group. */
  private serviceBacked(): Map<string, APIService[]> {
    const groups = new Map<string, APIService[]>();
    for (const apiService of this.cache.all()) {
      if (!apiService.spec?.service) continue;
      const group = apiService.spec.group ?? '';
      groups.set(group, [...(groups.get(group) ?? []), apiService]);
    }
    return groups;
  }

  /** What the aggregator serves at `path`, or undefined when the local handlers serve it. */
  route(path: string): AggregatedRoute | undefined {
    const match = /^\/apis\/([^/]+)(?:\/([^/]+))?(?:\/|$)/.exec(path);
    if (!match) return undefined;
    const [, group = '', version] = match;
    if (version !== undefined) {
      const apiService = this.cache.get(`${version}.${group}`);
      return apiService?.spec?.service ? { kind: 'proxy', apiService } : undefined;
    }
    if (path.replace(/\/+$/, '') !== `/apis/${group}`) return undefined;
    const backed = this.serviceBacked().get(group);
    if (!backed) return undefined;
    // A group served partly here and partly by a service lists what the APIServices list.
    const all = this.cache.all().filter((apiService) => apiService.spec?.group === group);
    return { kind: 'group', group: apiGroupOf(group, all) };
  }

  /** Serves a route found by route(). */
  async serve(ctx: RequestContext, route: AggregatedRoute): Promise<void> {
    if (route.kind === 'group') {
      sendJson(ctx.res, 200, route.group);
      return;
    }
    await proxyToApiService(ctx, route.apiService, this.deps);
  }

  /**
   * The aggregated /apis document with the service-backed versions merged in: Current while
   * their APIService is Available, Stale (the last document) while not.
   */
  mergeAggregated(document: APIGroupDiscoveryList, table: ResourceTable): APIGroupDiscoveryList {
    const versions: AggregatedVersion[] = [];
    for (const apiService of this.cache.all()) {
      const discovery = apiService.spec?.service && this.discovery.get(apiService.metadata?.name ?? '');
      if (!discovery) continue;
      const available = apiService.status?.conditions?.some(
        (c) => c.type === 'Available' && c.status === 'True',
      );
      versions.push({ apiService, discovery: available ? discovery : { ...discovery, freshness: 'Stale' } });
    }
    const priorities = groupPriorities(table);
    return mergeAggregatedDiscovery(document, (group) => priorities.get(group) ?? 0, versions);
  }

  /** The legacy /apis list with the service-backed groups added in the aggregator's priority order. */
  mergeGroupList(list: APIGroupList, table: ResourceTable): APIGroupList {
    const backed = this.serviceBacked();
    if (backed.size === 0) return list;
    const priorityOf = groupPriorities(table);
    const groups = list.groups.filter((group) => !backed.has(group.name));
    for (const [name, apiServices] of backed) {
      const all = this.cache.all().filter((apiService) => apiService.spec?.group === name);
      const body = apiGroupOf(name, all);
      groups.push({ name: body.name, versions: body.versions, preferredVersion: body.preferredVersion });
      priorityOf.set(name, Math.max(...apiServices.map((a) => a.spec?.groupPriorityMinimum ?? 0)));
    }
    const indexed = groups.map((group, index) => ({ group, index }));
    indexed.sort(
      (a, b) =>
        compareDescending(priorityOf.get(a.group.name) ?? 0, priorityOf.get(b.group.name) ?? 0) ||
        (a.group.name < b.group.name ? -1 : a.group.name > b.group.name ? 1 : a.index - b.index),
    );
    return { ...list, groups: indexed.map((entry) => entry.group) };
  }
}

/** Each local group's priority: its highest groupPriorityMinimum; the aggregator's own group first. */
function groupPriorities(table: ResourceTable): Map<string, number> {
  const priorityOf = new Map<string, number>();
  for (const group of table.groups) {
    const priorities = Object.values(group.priorities ?? {}).map((p) => p.group);
    priorityOf.set(group.name, priorities.length > 0 ? Math.max(...priorities) : Number.POSITIVE_INFINITY);
  }
  return priorityOf;
}

function compareDescending(a: number, b: number): number {
  return a === b ? 0 : b > a ? 1 : -1;
}

/** An APIGroup from its APIServices: versions by versionPriority, then kube-aware version order. */
function apiGroupOf(group: string, apiServices: readonly APIService[]): APIGroup {
  const sorted = [...apiServices].sort(
    (a, b) => (b.spec?.versionPriority ?? 0) - (a.spec?.versionPriority ?? 0),
  );
  const versions = sorted.map((apiService) => {
    const version = apiService.spec?.version ?? '';
    return { groupVersion: `${group}/${version}`, version };
  });
  return {
    kind: 'APIGroup',
    apiVersion: 'v1',
    name: group,
    versions,
    ...(versions[0] ? { preferredVersion: versions[0] } : {}),
  };
}

function logFailure(what: string): (error: unknown) => void {
  return (error) => console.error(`aggregator: ${what}:`, error);
}
