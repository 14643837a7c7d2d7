import { performance } from 'node:perf_hooks';
import type { KubeObject } from '../api/object.js';
import { BUILTIN_RESOURCES } from '../api/resources/builtin.js';
import type { ResourceInfo } from '../api/resources/types.js';
import type { Node, Pod } from '../api/types/core-v1.generated.js';
import type { APIGroupList } from '../api/types/meta-v1.generated.js';
import { TUNNEL_PATH } from '../client/tunnel/frames.js';
import type { IssuedCertificate } from '../pki/certificates.js';
import { DatastoreUnavailableError, type Store } from '../storage/index.js';
import { type AdmissionAttributes, AdmissionChain } from './admission/chain.js';
import { NamespaceCache } from './admission/namespace-cache.js';
import { ObjectCache } from './admission/object-cache.js';
import {
  certificateApprovalAdmission,
  certificateSigningAdmission,
} from './admission/plugins/certificate-signers.js';
import { certificateSubjectRestrictionAdmission } from './admission/plugins/certificate-subject-restriction.js';
import { defaultIngressClassAdmission } from './admission/plugins/default-ingress-class.js';
import { defaultStorageClassAdmission } from './admission/plugins/default-storage-class.js';
import { defaultTolerationSecondsAdmission } from './admission/plugins/default-toleration-seconds.js';
import { limitRangerAdmission } from './admission/plugins/limit-ranger.js';
import { nodeRestrictionAdmission } from './admission/plugins/node-restriction.js';
import { persistentVolumeClaimResizeAdmission } from './admission/plugins/persistent-volume-claim-resize.js';
import { podSecurityAdmission } from './admission/plugins/pod-security.js';
import { priorityAdmission } from './admission/plugins/priority.js';
import { QuotaNamespaces, resourceQuotaAdmission } from './admission/plugins/resource-quota.js';
import { runtimeClassAdmission } from './admission/plugins/runtime-class.js';
import { serviceAccountAdmission } from './admission/plugins/service-account.js';
import { storageObjectInUseProtectionAdmission } from './admission/plugins/storage-object-in-use-protection.js';
import { taintNodesByConditionAdmission } from './admission/plugins/taint-nodes-by-condition.js';
import { validatingAdmissionPolicy } from './admission/validating-admission-policy/index.js';
import type { WebhookClientDeps } from './admission/webhook/client.js';
import { type AdmissionWebhookWiring, admissionWebhooks } from './admission/webhook/index.js';
import type { WebhookMetrics } from './admission/webhook/metrics.js';
import { Aggregator } from './aggregator/aggregator.js';
import type { RequestHeaderSettings } from './aggregator/authentication-configmap.js';
import { CrdControllers } from './apiextensions/crd-controllers.js';
import { CustomResourceRegistry } from './apiextensions/registry.js';
import { defaultFieldManagerThreadEntry, FieldManagerThread } from './apply/field-manager-thread.js';
import { Authenticator } from './auth/authenticator.js';
import { BOOTSTRAP_TOKEN_NAMESPACE } from './auth/bootstrap-token.js';
import { impersonate } from './auth/impersonation.js';
import { NodeGraphPopulator, nodeAndRbacAuthorizer } from './auth/node/index.js';
import { PolicyCache } from './auth/policy-cache.js';
import { type Authorizer, forbiddenStatus, requestAttributes } from './auth/rbac/index.js';
import { rbacWriteCheck } from './auth/rbac-escalation.js';
import type { APIGroupDiscoveryList } from './discovery/aggregated.js';
import type { ResourceTable } from './discovery/table.js';
import { pruneUnknownFields } from './field-validation/prune.js';
import { maintainDanglingConditions } from './flowcontrol/configuration-ensurer.js';
import { admitRequest } from './flowcontrol/filter.js';
import { FlowController } from './flowcontrol/flow-controller.js';
import { ListWorkEstimator } from './flowcontrol/work-estimate.js';
import {
  serveSelfSubjectReview,
  serveTokenRequest,
  serveTokenReview,
} from './handlers/authentication-reviews.js';
import { serveAccessReview, serveRulesReview } from './handlers/authorization-reviews.js';
import type { KubeletClientCredentials } from './handlers/kubelet-connection.js';
import { nodeProxyHandler } from './handlers/node-proxy.js';
import { podConnectHandler } from './handlers/pod-connect.js';
import { podEvictionHandler } from './handlers/pod-eviction.js';
import { podLogsHandler } from './handlers/pod-logs.js';
import { podProxyHandler } from './handlers/pod-proxy.js';
import { ResourceHandler, type ResourceHandlerDeps } from './handlers/resource-handler.js';
import { serviceProxyHandler, serviceProxyLocation } from './handlers/service-proxy.js';
import type { WatchSettings } from './handlers/watch.js';
import { negotiateObjectOnly } from './http/negotiate.js';
import { sendJson, sendStatusError, sendText } from './http/respond.js';
import type { ApiRequest, ApiResponse, RequestContext, UserInfo } from './http/types.js';
import { RequestMetrics } from './metrics.js';
import { builtinStrategies } from './registry/builtin/index.js';
import { ResourceStore } from './registry/resource-store.js';
import { parseRequestInfo, type RequestInfo, type ResourceRequestInfo } from './request-info.js';
import { withResourceMetrics } from './resource-metrics/api-group.js';
import { serveResourceMetrics } from './resource-metrics/handler.js';
import { withResourceMetricsSchemas } from './resource-metrics/openapi.js';
import { MetricsScraper } from './resource-metrics/scraper.js';
import { MetricsStorage } from './resource-metrics/storage.js';
import { badRequest, forbidden, internalError, notFound, pathNotFound, StatusError } from './status.js';
import { PodStreamMetrics } from './streaming/metrics.js';
import { ApiServerDialer, type TunnelMode } from './tunnel/dialer.js';
import { NodeTunnels } from './tunnel/node-tunnels.js';

/** A handler for a path outside /api and /apis resources (health, version, discovery, openapi). */
export type PathHandler = (ctx: RequestContext) => void | Promise<void>;

export interface ApiServerOptions {
  readonly store: Store;
  readonly patchSchemaFor: ResourceHandlerDeps['patchSchemaFor'];
  /** Non-resource paths by exact path (discovery, openapi, version ...). */
  readonly paths?: Readonly<Record<string, PathHandler>>;
  /** Whether the server is ready (for /readyz). */
  readonly ready?: () => boolean;
  readonly watch?: WatchSettings;
  /** host:port clients reach this server at, for /api's serverAddressByClientCIDRs. */
  readonly serverAddress?: () => string;
  /** The client certificate pods/log (and later exec, port-forward) present to kubelets. */
  readonly kubeletClient?: () => Promise<KubeletClientCredentials>;
  /** Whether pods/log and the proxies reach nodes through their tunnels always, or only when needed. */
  readonly apiServerTunnel?: TunnelMode;
  /**
   * The aggregator's front-proxy client certificate and the CAs it publishes; without them no
   * aggregation (tests of the bare API server).
   */
  readonly aggregation?: {
    readonly proxyClient: () => Promise<IssuedCertificate>;
    readonly requestHeader: () => Promise<RequestHeaderSettings>;
  };
  /** Service-account tokens: the signing key pair, issuer and audiences. */
  readonly serviceAccountTokens?: {
    readonly privateKeyPem: string;
    readonly publicKeyPem: string;
    readonly issuer: string;
    readonly audiences: readonly string[];
  };
  /**
   * The field manager thread's program (apply/field-manager-thread-main.ts), when not the one
   * beside this module (defaultFieldManagerThreadEntry); without one big creates' field manager runs here.
   */
  readonly fieldManagerThreadEntry?: string;
  /** The built-in metrics server's `--metric-resolution`: how often it scrapes the kubelets (15 s). */
  readonly metricResolutionMs?: number;
}

/**
 * The request pipeline: authenticate, parse what the request is about, authorize, route
 * to a resource handler or a path handler, and turn every failure into a Status.
 */
export class ApiServer {
  readonly metrics = new RequestMetrics();
  /** pods/exec, attach and portforward connections by transport. */
  readonly podStreams = new PodStreamMetrics();
  private readonly resources = new Map<string, ResourceStore>();
  private readonly handler: ResourceHandler;
  private readonly paths: Record<string, PathHandler>;
  readonly authenticator: Authenticator;
  /** RBAC objects in memory, kept current by a watch: what authorization reads. */
  readonly policy: PolicyCache;
  /** Which objects each node may reach, kept current by a watch: what the Node authorizer reads. */
  readonly nodeGraph: NodeGraphPopulator;
  /** `--authorization-mode=Node,RBAC`, behind system:masters. */
  readonly authorizer: Authorizer;
  /** Namespaces with ResourceQuotas, where quota admission has work to do. */
  readonly quotaNamespaces = new QuotaNamespaces();
  /** Namespaces and whether they are terminating, for NamespaceLifecycle. */
  private readonly namespaces: NamespaceCache;
  /** What admission plugins read on every pod create, kept in memory as upstream's informers. */
  private readonly admissionCaches: { start(): Promise<void>; stop(): void }[];
  /** API Priority and Fairness: FlowSchemas and priority levels read from the store. */
  readonly flowControl: FlowController;
  private readonly listWork: ListWorkEstimator;
  private readonly webhookMetrics: WebhookMetrics;
  /** The admission webhooks, which also admit pods' connect requests (set after the handler is made). */
  private connectWebhooks?: AdmissionWebhookWiring;
  private readonly admissionChain: AdmissionChain;
  private readonly fieldManagerThread: FieldManagerThread | undefined;
  /** The custom resources served from CustomResourceDefinitions, and the controllers that keep them. */
  readonly customResources: CustomResourceRegistry;
  private readonly crdControllers: CrdControllers;
  /** The agents' tunnels into their nodes, and the dialer that uses them. */
  readonly tunnels = new NodeTunnels();
  readonly dialer: ApiServerDialer;
  /** kube-aggregator: APIServices, their availability, and proxying to service-backed ones. */
  readonly aggregator?: Aggregator;
  /** The built-in metrics server's store, filled by its scraper (only with kubelet credentials). */
  readonly resourceMetrics = new MetricsStorage();
  private readonly metricsScraper?: MetricsScraper;
  /** What metrics.k8s.io's get and list read. */
  private readonly metricsApi = {
    storage: this.resourceMetrics,
    nodes: () => this.resourceStore('', 'v1', 'nodes')!,
    pods: () => this.resourceStore('', 'v1', 'pods')!,
  };

  constructor(private readonly options: ApiServerOptions) {
    const kubeletCredentials = () =>
      options.kubeletClient?.() ??
      Promise.reject(internalError(new Error('no client certificate for kubelets is configured')));
    const core = (resource: string) => this.resourceStore('', 'v1', resource)!;
    this.dialer = new ApiServerDialer(this.tunnels, () => core('nodes'), options.apiServerTunnel ?? 'auto');
    const { dial } = this.dialer;
    if (options.kubeletClient) {
      this.metricsScraper = new MetricsScraper({
        nodes: async () => (await core('nodes').list('')).items.map((text) => JSON.parse(text) as Node),
        pods: async () => (await core('pods').list('')).items.map((text) => JSON.parse(text) as Pod),
        credentials: kubeletCredentials,
        dial,
        storage: this.resourceMetrics,
        ...(options.metricResolutionMs !== undefined && { intervalMs: options.metricResolutionMs }),
      });
    }
    const fieldManagerThreadEntry = options.fieldManagerThreadEntry ?? defaultFieldManagerThreadEntry();
    this.fieldManagerThread = fieldManagerThreadEntry
      ? new FieldManagerThread(fieldManagerThreadEntry)
      : undefined;
    this.handler = new ResourceHandler({
      store: options.store,
      fieldManagerThread: this.fieldManagerThread,
      patchSchemaFor: options.patchSchemaFor,
      watch: options.watch,
      podLogs: podLogsHandler({
        nodes: () => this.resourceStore('', 'v1', 'nodes')!,
        credentials: kubeletCredentials,
        dial,
      }),
      podConnect: podConnectHandler({
        nodes: () => core('nodes'),
        credentials: kubeletCredentials,
        dial,
        metrics: this.podStreams,
        admitConnect: async (attributes) => {
          await this.connectWebhooks?.mutating.admit?.(attributes);
          await this.connectWebhooks?.validating.validate?.(attributes);
        },
      }),
      nodeProxy: nodeProxyHandler({ credentials: kubeletCredentials, dial }),
      podProxy: podProxyHandler({ dial }),
      serviceProxy: serviceProxyHandler({
        dial,
        stores: () => ({ services: core('services'), endpoints: core('endpoints'), pods: core('pods') }),
      }),
      podEviction: podEvictionHandler({
        budgets: () => this.resourceStore('policy', 'v1', 'poddisruptionbudgets')!,
      }),
    });
    const strategies = builtinStrategies(options.store);
    for (const info of BUILTIN_RESOURCES) {
      if (!info.verbs.includes('get')) continue; // reviews are not stored resources
      this.register(
        info,
        new ResourceStore(info, strategies.strategyFor(info), options.store, this.checkNamespace),
      );
    }
    const tokens = options.serviceAccountTokens;
    this.authenticator = new Authenticator(
      tokens && {
        publicKeys: [tokens.publicKeyPem],
        issuer: tokens.issuer,
        audiences: tokens.audiences,
        lookup: {
          getServiceAccount: (ns, name) => this.resourceStore('', 'v1', 'serviceaccounts')!.find(ns, name),
          getPod: (ns, name) => this.resourceStore('', 'v1', 'pods')!.find(ns, name),
          getSecret: (ns, name) => this.resourceStore('', 'v1', 'secrets')!.find(ns, name),
          getNode: (name) => this.resourceStore('', 'v1', 'nodes')!.find('', name),
        },
      },
      (name) => this.resourceStore('', 'v1', 'secrets')!.find(BOOTSTRAP_TOKEN_NAMESPACE, name),
    );
    const cacheOf = (resourceStore: ResourceStore) => new ObjectCache(options.store, resourceStore.root);
    const namespaceObjects = cacheOf(this.resourceStore('', 'v1', 'namespaces')!);
    const serviceAccounts = cacheOf(this.resourceStore('', 'v1', 'serviceaccounts')!);
    const priorityClasses = cacheOf(this.resourceStore('scheduling.k8s.io', 'v1', 'priorityclasses')!);
    const limitRanges = cacheOf(this.resourceStore('', 'v1', 'limitranges')!);
    const policies = validatingAdmissionPolicy({
      store: options.store,
      policyRoot: this.resourceStore('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies')!
        .root,
      bindingRoot: this.resourceStore(
        'admissionregistration.k8s.io',
        'v1',
        'validatingadmissionpolicybindings',
      )!.root,
      resources: () => this.resources.values(),
      schemaFor: (gvk) => this.customResources.schemaOf(gvk.group, gvk.version, gvk.kind),
      namespaces: namespaceObjects,
      authorize: (user, attributes) => this.authorizer.authorize({ user, apiVersion: '*', ...attributes }),
      writeStatus: async (name, generation, status) => {
        const policyStore = this.resourceStore(
          'admissionregistration.k8s.io',
          'v1',
          'validatingadmissionpolicies',
        )!;
        await policyStore.guaranteedUpdate(
          '',
          name,
          (current) =>
            Number(current.metadata?.generation ?? 0) === generation ? { ...current, status } : current,
          { subresource: 'status' },
        );
      },
    });
    const serviceStores = () => ({
      services: core('services'),
      endpoints: core('endpoints'),
      pods: core('pods'),
    });
    // Admission and conversion webhooks reach Services the same way.
    const webhookClient: WebhookClientDeps = {
      dial,
      resolveService: async (namespace, name, port) => {
        const origin = new URL(
          await serviceProxyLocation(serviceStores(), namespace, `https:${name}:${port}`),
        );
        return { host: origin.hostname.replace(/^\[|\]$/g, ''), port: Number(origin.port || 443) };
      },
    };
    const webhooks = admissionWebhooks({
      store: options.store,
      mutatingRoot: this.resourceStore('admissionregistration.k8s.io', 'v1', 'mutatingwebhookconfigurations')!
        .root,
      validatingRoot: this.resourceStore(
        'admissionregistration.k8s.io',
        'v1',
        'validatingwebhookconfigurations',
      )!.root,
      namespaces: namespaceObjects,
      client: webhookClient,
      equivalentVersions: (group, resource) => {
        const versions: string[] = [];
        for (const { info } of this.resources.values())
          if (info.group === group && info.resource === resource) versions.push(info.version);
        return versions;
      },
      authorize: (user, attributes) => this.authorizer.authorize({ user, apiVersion: '*', ...attributes }),
      redefault: ({ resource }, object) => {
        const store = this.resourceStore(resource.group, resource.version, resource.resource);
        if (store === undefined) return;
        pruneUnknownFields(object, { group: resource.group, version: resource.version, kind: resource.kind });
        store.strategy.defaults(object);
      },
    });
    this.webhookMetrics = webhooks.metrics;
    this.connectWebhooks = webhooks;
    this.admissionCaches = [
      namespaceObjects,
      serviceAccounts,
      priorityClasses,
      limitRanges,
      policies,
      webhooks,
    ];
    this.namespaces = new NamespaceCache(namespaceObjects);
    const flowcontrolRoot = (resource: string) =>
      this.resourceStore('flowcontrol.apiserver.k8s.io', 'v1', resource)!.root;
    this.flowControl = new FlowController(options.store, {
      flowSchemas: flowcontrolRoot('flowschemas'),
      priorityLevels: flowcontrolRoot('prioritylevelconfigurations'),
    });
    this.listWork = new ListWorkEstimator(async (info) => {
      const store = this.resourceStore(info.group, info.version, info.resource);
      return store ? options.store.count(store.root) : undefined;
    });
    maintainDanglingConditions(
      this.flowControl,
      this.resourceStore('flowcontrol.apiserver.k8s.io', 'v1', 'flowschemas')!,
    );
    this.policy = new PolicyCache(options.store);
    this.nodeGraph = new NodeGraphPopulator(options.store);
    this.authorizer = nodeAndRbacAuthorizer(this.nodeGraph.graph, this.policy);
    const chain = new AdmissionChain([
      serviceAccountAdmission(serviceAccounts),
      nodeRestrictionAdmission({ pods: core('pods'), nodes: core('nodes') }),
      taintNodesByConditionAdmission,
      priorityAdmission(priorityClasses),
      defaultTolerationSecondsAdmission,
      defaultStorageClassAdmission(this.resourceStore('storage.k8s.io', 'v1', 'storageclasses')!),
      storageObjectInUseProtectionAdmission,
      persistentVolumeClaimResizeAdmission(this.resourceStore('storage.k8s.io', 'v1', 'storageclasses')!),
      runtimeClassAdmission(this.resourceStore('node.k8s.io', 'v1', 'runtimeclasses')!),
      limitRangerAdmission(limitRanges),
      podSecurityAdmission(namespaceObjects, core('pods')),
      certificateApprovalAdmission(this.authorizer),
      certificateSigningAdmission(this.authorizer),
      certificateSubjectRestrictionAdmission,
      defaultIngressClassAdmission(this.resourceStore('networking.k8s.io', 'v1', 'ingressclasses')!),
      // Upstream's order: webhooks and policies after the built-in plugins, quota last.
      webhooks.mutating,
      policies.plugin,
      webhooks.validating,
      resourceQuotaAdmission(core('resourcequotas'), this.quotaNamespaces),
    ]);
    for (const store of this.resources.values()) store.admissionChain = chain;
    this.admissionChain = chain;
    this.customResources = new CustomResourceRegistry(
      options.store,
      this.checkNamespace,
      {
        register: (info, store) => this.register(info, store),
        unregister: (info) => this.resources.delete(`${info.group}/${info.version}/${info.resource}`),
        prepare: (store) => {
          store.admissionChain = chain;
        },
      },
      webhookClient,
    );
    this.crdControllers = new CrdControllers(
      options.store,
      this.resourceStore('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!,
      this.customResources,
    );
    for (const resource of ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'] as const) {
      this.resourceStore('rbac.authorization.k8s.io', 'v1', resource)!.admission = rbacWriteCheck(
        resource,
        this.authorizer,
        this.policy,
      );
    }
    const aggregation = options.aggregation;
    if (aggregation) {
      this.aggregator = new Aggregator({
        store: options.store,
        apiServices: () => this.resourceStore('apiregistration.k8s.io', 'v1', 'apiservices')!,
        configMaps: () => core('configmaps'),
        services: () => core('services'),
        endpoints: () => core('endpoints'),
        dial,
        proxyClient: aggregation.proxyClient,
        requestHeader: aggregation.requestHeader,
        table: () => this.servedTable(),
        onTableChange: (listener) => this.customResources.onChange(listener),
      });
    }
    const health = (ctx: RequestContext) => this.health(ctx);
    this.paths = {
      '/healthz': health,
      '/livez': health,
      '/readyz': (ctx) => this.health(ctx, options.ready),
      '/metrics': (ctx) =>
        sendText(
          ctx.res,
          200,
          `${this.metrics.render()}${this.tunnels.metrics.render()}${this.podStreams.registry.render()}${this.flowControl.renderMetrics()}${this.webhookMetrics.render()}${this.customResources.conversionMetrics.render()}`,
        ),
      ...options.paths,
    };
  }

  /** What discovery, OpenAPI and the Local APIServices show: built-ins, CRD groups, metrics.k8s.io. */
  servedTable(): ResourceTable {
    return withResourceMetrics(this.customResources.table());
  }

  register(info: ResourceInfo, store: ResourceStore): void {
    this.resources.set(`${info.group}/${info.version}/${info.resource}`, store);
  }

  resourceStore(group: string, version: string, resource: string): ResourceStore | undefined {
    return this.resources.get(`${group}/${version}/${resource}`);
  }

  /** The store of a resource in its group's preferred (first registered) version. */
  storeForResource(group: string, resource: string): ResourceStore | undefined {
    for (const store of this.resources.values()) {
      if (store.info.group === group && store.info.resource === resource) return store;
    }
    return undefined;
  }

  /** Create-only endpoints that store nothing: reviews and token requests (no Table or metadata renderings). */
  private async serveVirtual(ctx: RequestContext, info: ResourceRequestInfo): Promise<boolean> {
    if (info.verb !== 'create' || !isVirtual(info)) return false;
    negotiateObjectOnly(ctx.headers.accept);
    if (info.group === 'authentication.k8s.io' && info.version === 'v1') {
      if (info.resource === 'selfsubjectreviews') return serveSelfSubjectReview(ctx).then(() => true);
      if (info.resource === 'tokenreviews') return serveTokenReview(ctx, this.authenticator).then(() => true);
    }
    if (info.group === 'authorization.k8s.io' && info.version === 'v1') {
      switch (info.resource) {
        case 'selfsubjectaccessreviews':
          return serveAccessReview(ctx, 'SelfSubjectAccessReview', this.authorizer, '').then(() => true);
        case 'subjectaccessreviews':
          return serveAccessReview(ctx, 'SubjectAccessReview', this.authorizer, '').then(() => true);
        case 'localsubjectaccessreviews':
          return serveAccessReview(ctx, 'LocalSubjectAccessReview', this.authorizer, info.namespace).then(
            () => true,
          );
        case 'selfsubjectrulesreviews':
          return serveRulesReview(ctx, this.policy).then(() => true);
      }
    }
    const tokens = this.options.serviceAccountTokens;
    if (tokens && info.group === '' && info.resource === 'serviceaccounts' && info.subresource === 'token') {
      const core = (resource: string) => this.resourceStore('', 'v1', resource)!;
      await serveTokenRequest(ctx, info.namespace, info.name, {
        signingKeyPem: tokens.privateKeyPem,
        issuer: tokens.issuer,
        audiences: tokens.audiences,
        serviceAccounts: core('serviceaccounts'),
        boundObjects: { Pod: core('pods'), Secret: core('secrets'), Node: core('nodes') },
        admit: (request) => this.admitTokenRequest(ctx, info, request),
      });
      return true;
    }
    return false;
  }

  /** TokenRequests are created through the admission chain like any object (serviceaccounts/token). */
  private async admitTokenRequest(ctx: RequestContext, info: ResourceRequestInfo, request: KubeObject) {
    const attributes: AdmissionAttributes = {
      operation: 'CREATE',
      resource: this.resourceStore('', 'v1', 'serviceaccounts')!.info,
      subresource: 'token',
      namespace: info.namespace,
      name: info.name,
      object: request,
      user: ctx.user,
      dryRun: false,
      warnings: [],
    };
    await this.admissionChain.admit(attributes);
    await this.admissionChain.validate(attributes);
  }

  /** Entry point for node:http2's compatibility API (HTTP/2 and HTTP/1.1 alike). */
  handle = (req: ApiRequest, res: ApiResponse): void => {
    const started = performance.now();
    let labels = { verb: req.method ?? '', group: '', version: '', resource: '', subresource: '', scope: '' };
    const run = async (): Promise<void> => {
      const target = req.url ?? '/';
      const queryAt = target.indexOf('?');
      const path = decodePath(queryAt < 0 ? target : target.slice(0, queryAt));
      const url = { searchParams: new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1)) };
      const user = impersonate(await this.authenticator.authenticate(req), req.headers, this.authorizer);
      const info = parseRequestInfo(req.method ?? 'GET', path, url.searchParams);
      if (info.isResourceRequest) {
        labels = {
          verb: metricsVerb(info.verb, req.method ?? 'GET'),
          group: info.group,
          version: info.version,
          resource: info.resource,
          subresource: info.subresource,
          scope: info.name !== '' ? 'resource' : info.namespace !== '' ? 'namespace' : 'cluster',
        };
      }
      // Only nodes open tunnels: long-lived, and the tunnel server checks the Node identity itself.
      const seat =
        path === TUNNEL_PATH
          ? undefined
          : await admitRequest(this.flowControl, this.listWork, req, res, user, info, url.searchParams);
      if (seat === 'rejected') return;
      const ctx: RequestContext = {
        req,
        res,
        method: req.method ?? 'GET',
        path,
        query: url.searchParams,
        headers: req.headers,
        user,
        watchInitialized: seat?.release,
      };
      try {
        await this.serve(ctx, info, url.searchParams);
      } finally {
        seat?.release();
      }
    };
    run()
      .catch((error: unknown) => this.fail(res, error))
      .finally(() => this.metrics.observe(labels, res.statusCode, (performance.now() - started) / 1000));
  };

  /** Authorizes and routes a request flow control admitted. */
  private async serve(ctx: RequestContext, info: RequestInfo, query: URLSearchParams): Promise<void> {
    const { user, path } = ctx;
    const aggregated = this.aggregator?.route(path);
    if (aggregated) {
      // Authorized here as by kube-aggregator's handler chain, and again by the aggregated server.
      this.authorize(user, info, query);
      // A proxied watch is long-running: its seat goes back once it is under way.
      if (info.verb === 'watch') ctx.watchInitialized?.();
      await this.aggregator!.serve(ctx, aggregated);
      return;
    }
    if (info.isResourceRequest) {
      this.authorize(user, info, query);
      if (await this.serveVirtual(ctx, info)) return;
      if (await serveResourceMetrics(ctx, info, this.metricsApi)) return;
      const store = this.resourceStore(info.group, info.version, info.resource);
      if (!store) throw pathNotFound();
      await this.handler.handle(ctx, info, store);
      return;
    }
    if (path === TUNNEL_PATH) return this.tunnels.serve(ctx);
    this.authorize(user, info, query);
    const handler = this.paths[path] ?? this.paths[path.replace(/\/+$/, '')];
    if (handler) {
      await handler(ctx);
      return;
    }
    // Discovery and OpenAPI load on first use: they are large and /readyz does not need them.
    const { serveDiscovery } = await import('./handlers/discovery-handler.js');
    const table = this.servedTable();
    const address = this.options.serverAddress?.() ?? '127.0.0.1:6443';
    const aggregator = this.aggregator;
    const merge = aggregator && {
      groupList: (list: APIGroupList) => aggregator.mergeGroupList(list, table),
      groupDiscovery: (document: APIGroupDiscoveryList) => aggregator.mergeAggregated(document, table),
    };
    const schemas = withResourceMetricsSchemas(this.customResources.schemas());
    if (!serveDiscovery(ctx, address, table, schemas, merge)) throw pathNotFound();
  }

  private fail(res: ApiResponse, error: unknown): void {
    // A server datastore that went away: the client may retry (it recovers when the server returns).
    const unavailable = error instanceof DatastoreUnavailableError;
    const status =
      error instanceof StatusError
        ? error
        : unavailable
          ? new StatusError(503, 'ServiceUnavailable', error.message)
          : internalError(error);
    if (!(error instanceof StatusError) && !unavailable) console.error('apiserver: internal error:', error);
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    sendStatusError(res, status);
  }

  /** system:masters, Node, RBAC: a request nothing allows is a 403 with Kubernetes' text. */
  private authorize(user: UserInfo, info: RequestInfo, query: URLSearchParams): void {
    const started = performance.now();
    const attributes = requestAttributes(info, user, query);
    const result = this.authorizer.authorize(attributes);
    this.metrics.observeAuthorization((performance.now() - started) / 1000);
    if (result.decision === 'allow') return;
    const { message, details } = forbiddenStatus(attributes, result.reason);
    throw new StatusError(403, 'Forbidden', message, details);
  }

  /**
   * Starts the policy cache and the node graph, and learns which namespaces have quotas; call
   * once the bootstrap policy is in the store.
   */
  async start(): Promise<void> {
    await Promise.all([
      this.policy.start(),
      this.nodeGraph.start(),
      ...this.admissionCaches.map((cache) => cache.start()),
      this.loadQuotaNamespaces(),
      this.crdControllers.start(),
      this.flowControl.start(),
    ]);
    // After the CRD controllers: the CRD groups' APIServices come from what they serve.
    await this.aggregator?.start();
    this.metricsScraper?.start();
  }

  stop(): void {
    this.metricsScraper?.stop();
    this.fieldManagerThread?.stop();
    this.tunnels.closeAll();
    this.policy.stop();
    this.nodeGraph.stop();
    this.crdControllers.stop();
    this.flowControl.stop();
    this.aggregator?.stop();
    for (const cache of this.admissionCaches) cache.stop();
  }

  /** Quotas created from now on are noted by quota admission; these are the ones stored already. */
  private async loadQuotaNamespaces(): Promise<void> {
    const { items } = await this.resourceStore('', 'v1', 'resourcequotas')!.list('');
    for (const text of items) {
      const namespace = (JSON.parse(text) as KubeObject).metadata?.namespace;
      if (namespace) this.quotaNamespaces.add(namespace);
    }
  }

  private health(ctx: RequestContext, ready: () => boolean = () => true): void {
    const ok = ready();
    const checks = ['ping', 'log', 'etcd', 'poststarthook/start-apiserver'];
    if (ctx.query.has('verbose')) {
      const lines = checks.map((check) => `[+]${check} ok`);
      if (!ok) lines[lines.length - 1] = `[-]${checks[checks.length - 1]} failed: reason withheld`;
      const name = ctx.path.slice(1);
      lines.push(ok ? `${name} check passed` : `${name} check failed`);
      sendText(ctx.res, ok ? 200 : 500, `${lines.join('\n')}\n`);
      return;
    }
    sendText(ctx.res, ok ? 200 : 500, ok ? 'ok' : 'not ready');
  }

  /** Namespaced creates need an existing namespace that is not terminating (NamespaceLifecycle). */
  private checkNamespace = async (
    namespace: string,
    gr: { group: string; resource: string },
    name: string,
  ) => {
    const state = await this.namespaces.state(namespace);
    if (state === undefined) throw notFound({ group: '', resource: 'namespaces' }, namespace);
    if (state === 'Terminating') {
      const error = forbidden(
        gr,
        name,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
      error.details!.causes = [
        {
          reason: 'NamespaceTerminating',
          message: `namespace ${namespace} is being terminated`,
          field: 'metadata.namespace',
        },
      ];
      throw error;
    }
  };
}

/** The verb label kube-apiserver's metrics use: LIST and WATCH, else the HTTP method. */
const REVIEWS: Readonly<Record<string, readonly string[]>> = {
  'authentication.k8s.io': ['selfsubjectreviews', 'tokenreviews'],
  'authorization.k8s.io': [
    'selfsubjectaccessreviews',
    'subjectaccessreviews',
    'localsubjectaccessreviews',
    'selfsubjectrulesreviews',
  ],
};

/** Reviews and token requests: answered here, stored nowhere. */
function isVirtual(info: ResourceRequestInfo): boolean {
  if (info.group === '') return info.resource === 'serviceaccounts' && info.subresource === 'token';
  return info.version === 'v1' && (REVIEWS[info.group]?.includes(info.resource) ?? false);
}

function metricsVerb(verb: string, method: string): string {
  if (verb === 'list' || verb === 'watch') return verb.toUpperCase();
  return method.toUpperCase();
}

function decodePath(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw badRequest(`invalid URL path: ${JSON.stringify(raw)}`);
  }
}

export { sendJson };
