// The service controller (cloud-provider's controllers/service) with tkube's layer-2 address pool
// as its load balancer: every `type: LoadBalancer` service without a `loadBalancerClass` (or with
// tkube's) gets one address of the pool in `status.loadBalancer.ingress` and the
// `service.kubernetes.io/load-balancer-cleanup` finalizer; the address is released when the
// service is deleted or stops being a LoadBalancer. Services of another class are left alone, as
// upstream leaves them to their own controller. The node agents announce the addresses.
import { wantsLoadBalancer } from '../../api/load-balancer.js';
import type { LoadBalancerIngress, Service } from '../../api/types/core-v1.generated.js';
import { Controller, splitKey } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events/index.js';
import type { Lister } from '../../client/informers/index.js';
import { SERVICES } from '../../client/resources.js';
import { isNotFound } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';
import { type ControllerContext, type ControllerDescriptor, IDLE_CONTROLLER } from '../context.js';
import { type AddressRange, chooseAddress, parseAddressRange, rangeContains } from './address-pool.js';

const SERVICE_ACCOUNT = 'service-controller';
export const LOAD_BALANCER_CLEANUP_FINALIZER = 'service.kubernetes.io/load-balancer-cleanup';
function hasCleanupFinalizer(service: Service): boolean {
  return service.metadata?.finalizers?.includes(LOAD_BALANCER_CLEANUP_FINALIZER) === true;
}

function keyOf(service: Service): string {
  return `${service.metadata?.namespace}/${service.metadata?.name}`;
}

export class ServiceLoadBalancerController {
  readonly controller: Controller;
  private readonly services: Lister<Service>;
  private readonly client: Client;
  private readonly recorder: EventRecorder;
  /** Addresses handed out, by address → service key: ahead of the informer's view of our writes. */
  private readonly allocated = new Map<string, string>();

  constructor(
    context: ControllerContext,
    private readonly range: AddressRange,
  ) {
    this.client = context.clientFor(SERVICE_ACCOUNT);
    this.recorder = context.recorderFor(SERVICE_ACCOUNT, 'service-controller');
    const services = context.informers.informerFor<Service>(SERVICES);
    this.services = services.lister;
    // One worker: allocation decisions are made one service at a time, so none collide.
    this.controller = new Controller({ name: 'service-lb', sync: (key) => this.sync(key), workers: 1 });
    this.controller.watch(services);
    services.addEventHandler({ onUpdate: (old, updated) => this.recordChange(old, updated) });
  }

  /** The changes upstream's needsUpdate announces on the service before it syncs. */
  private recordChange(old: Service, updated: Service): void {
    const wanted = wantsLoadBalancer(old);
    if (!wanted && !wantsLoadBalancer(updated)) return;
    if (wanted !== wantsLoadBalancer(updated)) {
      this.recorder.event(updated, 'Normal', 'Type', `${old.spec?.type} -> ${updated.spec?.type}`);
    } else if ((old.spec?.loadBalancerIP ?? '') !== (updated.spec?.loadBalancerIP ?? '')) {
      this.recorder.event(
        updated,
        'Normal',
        'LoadbalancerIP',
        `${old.spec?.loadBalancerIP ?? ''} -> ${updated.spec?.loadBalancerIP ?? ''}`,
      );
    }
  }

  async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const service = this.services.get(namespace, name);
    if (!service) {
      this.release(key);
      return;
    }
    const deleting = service.metadata?.deletionTimestamp !== undefined;
    if (deleting || !wantsLoadBalancer(service)) {
      if (hasCleanupFinalizer(service)) await this.deleteLoadBalancer(service, deleting);
      else if (!deleting && service.spec?.loadBalancerClass === undefined) this.release(key);
      return;
    }
    await this.ensureLoadBalancer(service);
  }

  private async ensureLoadBalancer(service: Service): Promise<void> {
    const key = keyOf(service);
    const current = service.status?.loadBalancer?.ingress?.find(
      (ingress) => ingress.ip && rangeContains(this.range, ingress.ip),
    )?.ip;
    const choice = chooseAddress(this.range, this.addressesInUse(key), current, service.spec?.loadBalancerIP);
    if ('error' in choice) {
      this.recorder.event(
        service,
        'Warning',
        'SyncLoadBalancerFailed',
        `Error syncing load balancer: failed to ensure load balancer: ${choice.error}`,
      );
      throw new Error(`service ${key}: ${choice.error}`);
    }
    this.assign(key, choice.ip);
    const ingress: LoadBalancerIngress[] = [{ ip: choice.ip, ipMode: 'VIP' }];
    if (hasCleanupFinalizer(service) && sameIngress(service.status?.loadBalancer?.ingress, ingress)) return;
    this.recorder.event(service, 'Normal', 'EnsuringLoadBalancer', 'Ensuring load balancer');
    const finalizers = [...(service.metadata?.finalizers ?? [])];
    if (!finalizers.includes(LOAD_BALANCER_CLEANUP_FINALIZER))
      finalizers.push(LOAD_BALANCER_CLEANUP_FINALIZER);
    await this.patchStatus(service, finalizers, ingress);
    this.recorder.event(service, 'Normal', 'EnsuredLoadBalancer', 'Ensured load balancer');
  }

  private async deleteLoadBalancer(service: Service, deleting: boolean): Promise<void> {
    this.recorder.event(service, 'Normal', 'DeletingLoadBalancer', 'Deleting load balancer');
    this.release(keyOf(service));
    const finalizers = (service.metadata?.finalizers ?? []).filter(
      (finalizer) => finalizer !== LOAD_BALANCER_CLEANUP_FINALIZER,
    );
    // A service that stays (its type changed) keeps no address in its status.
    await this.patchStatus(service, finalizers, deleting ? service.status?.loadBalancer?.ingress : undefined);
    this.recorder.event(service, 'Normal', 'DeletedLoadBalancer', 'Deleted load balancer');
  }

  /** Finalizers and ingress in one write to the status subresource, as upstream's PatchService. */
  private async patchStatus(
    service: Service,
    finalizers: string[],
    ingress: LoadBalancerIngress[] | undefined,
  ): Promise<void> {
    const patch = {
      metadata: { resourceVersion: service.metadata?.resourceVersion, finalizers },
      status: { loadBalancer: ingress?.length ? { ingress } : { ingress: null } },
    };
    try {
      await this.client
        .resource<Service>(SERVICES)
        .patch(service.metadata?.namespace ?? '', service.metadata?.name ?? '', 'merge', patch, {
          subresource: 'status',
        });
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
  }

  /**
   * Every address held by a service other than `key`: ours handed out, and any the cache shows
   * in a status — also those another load balancer controller wrote, so none is handed out twice.
   */
  private addressesInUse(key: string): Set<string> {
    const inUse = new Set<string>();
    for (const [ip, holder] of this.allocated) if (holder !== key) inUse.add(ip);
    for (const other of this.services.list()) {
      if (keyOf(other) === key) continue;
      for (const ingress of other.status?.loadBalancer?.ingress ?? []) if (ingress.ip) inUse.add(ingress.ip);
    }
    return inUse;
  }

  private assign(key: string, ip: string): void {
    this.release(key);
    this.allocated.set(ip, key);
  }

  private release(key: string): void {
    for (const [ip, holder] of this.allocated) if (holder === key) this.allocated.delete(ip);
  }
}

function sameIngress(
  a: readonly LoadBalancerIngress[] | undefined,
  b: readonly LoadBalancerIngress[],
): boolean {
  return (
    (a?.length ?? 0) === b.length &&
    b.every((entry, index) => a?.[index]?.ip === entry.ip && (a?.[index]?.ipMode ?? 'VIP') === entry.ipMode)
  );
}

export const serviceLoadBalancerController: ControllerDescriptor = {
  name: 'service-lb-controller',
  create: (context) => {
    const text = context.settings.loadBalancerIpRange;
    const range = text ? parseAddressRange(text) : undefined;
    if (!range) {
      if (text)
        console.error(`service-lb-controller: invalid load balancer address range ${JSON.stringify(text)}`);
      return IDLE_CONTROLLER;
    }
    return new ServiceLoadBalancerController(context, range).controller;
  },
};
