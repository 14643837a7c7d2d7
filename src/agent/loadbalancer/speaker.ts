// The layer-2 announcer (MetalLB's speaker): for every LoadBalancer address tkube's service
// controller assigned on the node network, exactly one node holds it — the holder of a Lease per
// service in kube-system — and adds it to its interface; when the holder stops renewing (its
// node stopped), another node takes the lease and the address over. With
// `externalTrafficPolicy: Local` only nodes with a ready local endpoint campaign, since the
// others would drop the traffic; a node labelled node.kubernetes.io/exclude-from-external-load-balancers
// never does.
import { wantsLoadBalancer } from '../../api/load-balancer.js';
import type { Node, Service } from '../../api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../api/types/discovery-v1.generated.js';
import type { EventRecorder } from '../../client/events/index.js';
import { type DeletedFinalStateUnknown, type SharedInformer, sleep } from '../../client/informers/index.js';
import { LeaderElector } from '../../client/leader-election/index.js';
import { LEASES } from '../../client/resources.js';
import { isNotFound } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';

export const SPEAKER_LEASE_NAMESPACE = 'kube-system';
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
/** Nodes labelled so carry no load balancer traffic (upstream's service controller and MetalLB). */
export const EXCLUDE_FROM_LOAD_BALANCERS_LABEL = 'node.kubernetes.io/exclude-from-external-load-balancers';

/** The Lease that decides which node announces a service's addresses. */
export function speakerLeaseName(namespace: string, name: string): string {
  return `tkube-lb.${namespace}.${name}`;
}

/** Puts addresses on the node's interface and takes them off. */
export interface AddressHolder {
  /** Whether the address is on this node's network (only those can be announced here). */
  announceable(ip: string): boolean;
  add(ip: string): Promise<void>;
  remove(ip: string): Promise<void>;
}

export interface SpeakerOptions {
  /** Reads and writes the Leases. */
  readonly client: Client;
  readonly services: SharedInformer<Service>;
  readonly slices: SharedInformer<EndpointSlice>;
  /** This node's labels may exclude it from announcing anything. */
  readonly nodes: SharedInformer<Node>;
  readonly nodeName: string;
  readonly addresses: AddressHolder;
  /** Says on the service which node announces it, as MetalLB's speaker does. */
  readonly recorder?: EventRecorder;
  /** Lease timing: a stopped holder's addresses move after about leaseDuration + retryPeriod. */
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
}

interface Campaign {
  readonly abort: AbortController;
  ips: readonly string[];
  leading: boolean;
  readonly done: Promise<void>;
}

export class LoadBalancerSpeaker {
  private readonly campaigns = new Map<string, Campaign>();
  /** The addresses on the interface now. */
  private readonly applied = new Set<string>();
  private applying: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: SpeakerOptions) {
    const onService = (service: Service | DeletedFinalStateUnknown<Service>) =>
      this.reconcile(
        'key' in service ? service.key : `${service.metadata?.namespace}/${service.metadata?.name}`,
      );
    options.services.addEventHandler({
      onAdd: onService,
      onUpdate: (_old, service) => onService(service),
      onDelete: onService,
    });
    const onSlice = (slice: EndpointSlice | DeletedFinalStateUnknown<EndpointSlice>) => {
      const object = 'key' in slice ? slice.obj : slice;
      const service = object.metadata?.labels?.[SERVICE_NAME_LABEL];
      if (service) this.reconcile(`${object.metadata?.namespace}/${service}`);
    };
    options.slices.addEventHandler({
      onAdd: onSlice,
      onUpdate: (_old, slice) => onSlice(slice),
      onDelete: onSlice,
    });
    const onNode = (node: Node | DeletedFinalStateUnknown<Node>) => {
      const object = 'key' in node ? node.obj : node;
      if (object.metadata?.name !== options.nodeName) return;
      for (const service of options.services.lister.list())
        this.reconcile(`${service.metadata?.namespace}/${service.metadata?.name}`);
    };
    options.nodes.addEventHandler({
      onAdd: onNode,
      onUpdate: (_old, node) => onNode(node),
      onDelete: onNode,
    });
  }

  private excluded(): boolean {
    const node = this.options.nodes.lister.get('', this.options.nodeName);
    return node?.metadata?.labels?.[EXCLUDE_FROM_LOAD_BALANCERS_LABEL] !== undefined;
  }

  /** The addresses this node holds now. */
  held(): string[] {
    return [...this.applied].sort();
  }

  /** Runs until the signal aborts; then gives every lease up and takes every address off. */
  async run(signal: AbortSignal): Promise<void> {
    if (!signal.aborted)
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    this.stopped = true;
    const campaigns = [...this.campaigns.values()];
    this.campaigns.clear();
    for (const campaign of campaigns) campaign.abort.abort();
    await Promise.all(campaigns.map((campaign) => campaign.done));
    await this.apply();
  }

  /** The addresses the service wants announced from this node; none when it should not campaign. */
  private wanted(key: string): string[] {
    const [namespace = '', name = ''] = key.split('/');
    const service = this.options.services.lister.get(namespace, name);
    if (!service || service.metadata?.deletionTimestamp || !wantsLoadBalancer(service) || this.excluded())
      return [];
    const ips = (service.status?.loadBalancer?.ingress ?? [])
      .map((ingress) => ingress.ip ?? '')
      .filter((ip) => ip !== '' && this.options.addresses.announceable(ip));
    if (ips.length === 0) return [];
    if (service.spec?.externalTrafficPolicy === 'Local' && !this.hasLocalEndpoint(namespace, name)) return [];
    return ips;
  }

  private hasLocalEndpoint(namespace: string, name: string): boolean {
    return this.options.slices.lister
      .list(namespace, `${SERVICE_NAME_LABEL}=${name}`)
      .some((slice) =>
        (slice.endpoints ?? []).some(
          (endpoint) => endpoint.nodeName === this.options.nodeName && endpoint.conditions?.ready !== false,
        ),
      );
  }

  private reconcile(key: string): void {
    if (this.stopped) return;
    const ips = this.wanted(key);
    const campaign = this.campaigns.get(key);
    if (ips.length === 0) {
      if (!campaign) return;
      this.campaigns.delete(key);
      campaign.abort.abort();
      void campaign.done.then(() => this.forgetLease(key));
      return;
    }
    if (campaign) {
      campaign.ips = ips;
      if (campaign.leading) void this.apply();
      return;
    }
    this.campaigns.set(key, this.campaign(key, ips));
  }

  private campaign(key: string, ips: readonly string[]): Campaign {
    const [namespace = '', name = ''] = key.split('/');
    const abort = new AbortController();
    const campaign: Campaign = { abort, ips, leading: false, done: Promise.resolve() };
    const elector = new LeaderElector({
      client: this.options.client,
      namespace: SPEAKER_LEASE_NAMESPACE,
      name: speakerLeaseName(namespace, name),
      identity: this.options.nodeName,
      leaseDurationMs: this.options.leaseDurationMs ?? 6_000,
      renewDeadlineMs: this.options.renewDeadlineMs ?? 4_000,
      retryPeriodMs: this.options.retryPeriodMs ?? 1_000,
      releaseOnCancel: true,
      log: () => {},
      callbacks: {
        onStartedLeading: (leading) => {
          campaign.leading = true;
          void this.apply();
          const service = this.options.services.lister.get(namespace, name);
          if (service) {
            this.options.recorder?.event(
              service,
              'Normal',
              'nodeAssigned',
              `announcing from node "${this.options.nodeName}" with protocol "layer2"`,
            );
          }
          // Off the interface before the lease is released, so two nodes never answer at once.
          leading.addEventListener(
            'abort',
            () => {
              campaign.leading = false;
              void this.apply();
            },
            { once: true },
          );
        },
        onStoppedLeading: () => {
          campaign.leading = false;
        },
      },
    });
    const loop = async (): Promise<void> => {
      while (!abort.signal.aborted) {
        await elector.run(abort.signal);
        if (!abort.signal.aborted) await sleep(this.options.retryPeriodMs ?? 1_000, abort.signal);
      }
    };
    return Object.assign(campaign, { done: loop().catch(() => undefined) });
  }

  /** A deleted service's lease goes with it (whichever node gets there first). */
  private async forgetLease(key: string): Promise<void> {
    const [namespace = '', name = ''] = key.split('/');
    if (this.options.services.lister.get(namespace, name) || this.campaigns.has(key)) return;
    await this.options.client
      .resource(LEASES)
      .delete(SPEAKER_LEASE_NAMESPACE, speakerLeaseName(namespace, name))
      .catch((error: unknown) => {
        if (!isNotFound(error)) console.error(`agent: load balancer lease of ${key}: ${String(error)}`);
      });
  }

  /** Brings the interface to the addresses of the services this node leads, one change at a time. */
  private apply(): Promise<void> {
    this.applying = this.applying.then(async () => {
      const want = new Set<string>();
      for (const campaign of this.campaigns.values())
        if (campaign.leading) for (const ip of campaign.ips) want.add(ip);
      for (const ip of [...this.applied]) {
        if (want.has(ip)) continue;
        await this.options.addresses.remove(ip).then(
          () => this.applied.delete(ip),
          (error: unknown) =>
            console.error(`agent: cannot remove load balancer address ${ip}: ${String(error)}`),
        );
      }
      for (const ip of want) {
        if (this.applied.has(ip)) continue;
        await this.options.addresses.add(ip).then(
          () => this.applied.add(ip),
          (error: unknown) =>
            console.error(`agent: cannot add load balancer address ${ip}: ${String(error)}`),
        );
      }
    });
    return this.applying;
  }
}
