// The agent's ingress controller (ingress-nginx's controller loop, run on every node as a
// DaemonSet of ingress-nginx would be): Ingresses of an IngressClass whose controller is
// `tkube.dev/ingress` (by `spec.ingressClassName`, the legacy `kubernetes.io/ingress.class`
// annotation, or the default class for those naming none) become the routing table and SNI
// table of this node's proxy on ports 80 and 443. Backends are services reached through their
// ClusterIP (kube-proxy balances over the endpoints) on the port named or numbered. Bad
// references (a missing service or port, a missing Secret, a certificate that does not load,
// a rule shadowed by an older Ingress) are Warning events on the Ingress, once per problem.
import type { SecureContext } from 'node:tls';
import { INGRESS_HTTP_PORT, INGRESS_HTTPS_PORT, servedByTkube } from '../../api/ingress.js';
import type { Secret, Service } from '../../api/types/core-v1.generated.js';
import type { Ingress, IngressBackend, IngressClass } from '../../api/types/networking-v1.generated.js';
import { EventBroadcaster, type EventRecorder } from '../../client/events/index.js';
import type { SharedInformer, SharedInformerFactory } from '../../client/informers/index.js';
import { INGRESS_CLASSES, INGRESSES, SECRETS, SERVICES } from '../../client/resources.js';
import type { Client } from '../../client/types.js';
import { buildCertificateTable, type CertificateTable, defaultSecureContext } from './certificates.js';
import { IngressProxy, type Resolution } from './proxy-server.js';
import { buildRouteTable, type RouteTable, type RouteTarget } from './routes.js';

export interface NodeIngressOptions {
  readonly client: Client;
  readonly informers: SharedInformerFactory;
  readonly nodeName: string;
  readonly bindAddress: string;
  readonly httpPort?: number;
  readonly httpsPort?: number;
}

/** The ClusterIP and port a service backend goes to, or why there is none. */
export function resolveServiceBackend(
  backend: IngressBackend,
  service: Service | undefined,
): { host: string; port: number } | { problem: string } {
  const reference = backend.service;
  if (!reference) return { problem: 'only service backends are supported' };
  if (!service) return { problem: `service not found` };
  const wanted = reference.port ?? {};
  const port = service.spec?.ports?.find((candidate) =>
    wanted.name ? candidate.name === wanted.name : candidate.port === wanted.number,
  );
  if (!port) return { problem: `service has no port ${wanted.name ?? String(wanted.number)}` };
  if (service.spec?.type === 'ExternalName' && service.spec.externalName) {
    return { host: service.spec.externalName, port: port.port };
  }
  const clusterIP = service.spec?.clusterIP;
  if (!clusterIP || clusterIP === 'None') return { problem: 'service has no cluster IP' };
  return { host: clusterIP, port: port.port };
}

export class NodeIngress {
  private readonly ingresses: SharedInformer<Ingress>;
  private readonly classes: SharedInformer<IngressClass>;
  private readonly services: SharedInformer<Service>;
  private readonly secrets: SharedInformer<Secret>;
  private readonly events: EventBroadcaster;
  private readonly recorder: EventRecorder;
  private readonly contexts = new Map<string, SecureContext | Error>();
  private readonly reported = new Set<string>();
  private routes: RouteTable = buildRouteTable([]);
  private certificates: CertificateTable | undefined;
  private pending: NodeJS.Timeout | undefined;
  readonly proxy: IngressProxy;

  constructor(options: NodeIngressOptions) {
    this.ingresses = options.informers.informerFor<Ingress>(INGRESSES);
    this.classes = options.informers.informerFor<IngressClass>(INGRESS_CLASSES);
    this.services = options.informers.informerFor<Service>(SERVICES);
    // Only TLS Secrets: the controller never holds the cluster's other Secrets.
    this.secrets = options.informers.informerFor<Secret>(SECRETS, {
      fieldSelector: 'type=kubernetes.io/tls',
    });
    this.events = new EventBroadcaster(options.client);
    this.recorder = this.events.newRecorder({ component: 'tkube-ingress', host: options.nodeName });
    const changed = {
      onAdd: () => this.schedule(),
      onUpdate: () => this.schedule(),
      onDelete: () => this.schedule(),
    };
    for (const informer of [this.ingresses, this.classes, this.services, this.secrets]) {
      informer.addEventHandler(changed);
    }
    this.proxy = new IngressProxy({
      bindAddress: options.bindAddress,
      httpPort: options.httpPort ?? INGRESS_HTTP_PORT,
      httpsPort: options.httpsPort ?? INGRESS_HTTPS_PORT,
      defaultContext: defaultSecureContext(),
      resolve: (host, path) => this.resolve(host, path),
      secureContext: (servername) => this.certificates?.contextFor(servername),
    });
  }

  async run(signal: AbortSignal): Promise<void> {
    const ports = await this.proxy.listen();
    console.log(`agent: ingress controller serving HTTP on ${ports.http}, HTTPS on ${ports.https}`);
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    clearTimeout(this.pending);
    await this.proxy.close();
    await this.events.shutdown();
  }

  /** Rebuilds the tables once the burst of changes an informer delivers has passed. */
  private schedule(): void {
    if (this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = undefined;
      if (this.ingresses.hasSynced() && this.classes.hasSynced()) this.rebuild();
      else this.schedule();
    }, 50);
  }

  rebuild(): void {
    const classes = this.classes.lister.list();
    const served = this.ingresses.lister.list().filter((ingress) => servedByTkube(ingress, classes));
    this.routes = buildRouteTable(served);
    this.certificates = buildCertificateTable(
      served,
      (namespace, name) => this.secrets.lister.get(namespace, name),
      this.contexts,
    );
    const problems: { ingress: Ingress; reason: string; message: string }[] = [...this.certificates.problems];
    const byName = new Map(
      served.map((ingress) => [`${ingress.metadata?.namespace}/${ingress.metadata?.name}`, ingress]),
    );
    for (const overlap of this.routes.overlaps) {
      const ingress = byName.get(`${overlap.namespace}/${overlap.ingress}`);
      if (!ingress) continue;
      problems.push({
        ingress,
        reason: 'OverlappingRule',
        message: `host "${overlap.host || '*'}" path "${overlap.path}" (${overlap.pathType}) is already defined in ingress ${overlap.keptBy}`,
      });
    }
    for (const ingress of served) {
      const namespace = ingress.metadata?.namespace ?? 'default';
      const backends = [
        ...(ingress.spec?.defaultBackend ? [ingress.spec.defaultBackend] : []),
        ...(ingress.spec?.rules ?? []).flatMap((rule) =>
          (rule.http?.paths ?? []).map((path) => path.backend),
        ),
      ];
      for (const backend of backends) {
        const service = backend.service && this.services.lister.get(namespace, backend.service.name);
        const resolved = resolveServiceBackend(backend, service);
        if ('problem' in resolved) {
          problems.push({
            ingress,
            reason: service || !backend.service ? 'InvalidBackend' : 'ServiceNotFound',
            message: `backend ${namespace}/${backend.service?.name ?? backend.resource?.name ?? ''}: ${resolved.problem}`,
          });
        }
      }
    }
    const current = new Set<string>();
    for (const { ingress, reason, message } of problems) {
      const key = `${ingress.metadata?.uid ?? ''}|${reason}|${message}`;
      current.add(key);
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      this.recorder.event(ingress, 'Warning', reason, message);
    }
    // A problem fixed and come back is reported again.
    for (const key of this.reported) if (!current.has(key)) this.reported.delete(key);
  }

  resolve(host: string, path: string): Resolution {
    const target: RouteTarget | undefined = this.routes.match(host, path);
    if (!target) return { kind: 'not-found' };
    const name = target.backend.service?.name;
    const resolved = resolveServiceBackend(
      target.backend,
      name === undefined ? undefined : this.services.lister.get(target.namespace, name),
    );
    return 'problem' in resolved ? { kind: 'unavailable' } : { kind: 'backend', ...resolved };
  }
}
