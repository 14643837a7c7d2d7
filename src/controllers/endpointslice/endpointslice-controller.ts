// The EndpointSlice controller (pkg/controller/endpointslice): keeps the EndpointSlices of every
// Service with a selector — labelled with the service name and `managed-by:
// endpointslice-controller.k8s.io`, owned by the Service (the garbage collector removes them with
// it) — in line with the selected pods, ready, serving and terminating ones alike.
import type { Node, Pod, Service } from '../../api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../api/types/discovery-v1.generated.js';
import { Controller, objectOf, splitKey } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events/index.js';
import type { Lister } from '../../client/informers/index.js';
import { ENDPOINT_SLICES, NODES, PODS, SERVICES } from '../../client/resources.js';
import type { ControllerContext, ControllerDescriptor } from '../context.js';
import { podChangeHandler, serviceSelector } from '../endpoint/pod-membership.js';
import { TriggerTimeTracker } from '../endpoint/trigger-time-tracker.js';
import { Reconciler } from './reconciler.js';
import { CONTROLLER_NAME, MANAGED_BY_LABEL, SERVICE_NAME_LABEL } from './slice-contents.js';
import { EndpointSliceTracker, serviceKeyOf } from './slice-tracker.js';

const SERVICE_ACCOUNT = 'endpointslice-controller';
/** Slice events wait this long before the service syncs, so bursts of them coalesce. */
const SLICE_CHANGE_MIN_SYNC_DELAY_MS = 1000;

export class EndpointSliceController {
  readonly controller: Controller;
  private readonly services: Lister<Service>;
  private readonly pods: Lister<Pod>;
  private readonly slices: Lister<EndpointSlice>;
  private readonly recorder: EventRecorder;
  private readonly tracker = new EndpointSliceTracker();
  private readonly triggerTimes = new TriggerTimeTracker();
  private readonly reconciler: Reconciler;

  constructor(context: ControllerContext) {
    this.recorder = context.recorderFor(SERVICE_ACCOUNT, 'endpoint-slice-controller');
    const services = context.informers.informerFor<Service>(SERVICES);
    const pods = context.informers.informerFor<Pod>(PODS);
    const slices = context.informers.informerFor<EndpointSlice>(ENDPOINT_SLICES);
    const nodes = context.informers.informerFor<Node>(NODES);
    this.services = services.lister;
    this.pods = pods.lister;
    this.slices = slices.lister;
    this.reconciler = new Reconciler(
      context.clientFor(SERVICE_ACCOUNT),
      (name) => nodes.lister.get('', name),
      context.settings.maxEndpointsPerSlice,
      this.tracker,
    );
    this.controller = new Controller({
      name: 'endpointslice',
      sync: (key) => this.sync(key),
      workers: 5,
      waitFor: [pods, slices, nodes],
    });
    this.controller.watch(services);
    pods.addEventHandler(podChangeHandler(this.services, (key) => this.controller.enqueueKey(key)));
    slices.addEventHandler({
      onAdd: (slice) => {
        if (managedByUs(slice) && this.tracker.shouldSync(slice)) this.enqueueForSlice(slice);
      },
      onUpdate: (oldSlice, slice) => {
        // Users may relabel a slice to another service: both services need a look.
        if (
          oldSlice.metadata?.labels?.[SERVICE_NAME_LABEL] !== slice.metadata?.labels?.[SERVICE_NAME_LABEL]
        ) {
          this.enqueueForSlice(slice);
          this.enqueueForSlice(oldSlice);
          return;
        }
        if (
          managedByUs(oldSlice) !== managedByUs(slice) ||
          (managedByUs(slice) && this.tracker.shouldSync(slice))
        ) {
          this.enqueueForSlice(slice);
        }
      },
      onDelete: (deleted) => {
        const slice = objectOf(deleted);
        // A deletion this controller did not make needs the slice back.
        if (managedByUs(slice) && this.tracker.has(slice) && !this.tracker.handleDeletion(slice)) {
          this.enqueueForSlice(slice);
        }
      },
    });
  }

  private enqueueForSlice(slice: EndpointSlice): void {
    if (!slice.metadata?.labels?.[SERVICE_NAME_LABEL]) return;
    this.controller.enqueueAfter(serviceKeyOf(slice), SLICE_CHANGE_MIN_SYNC_DELAY_MS);
  }

  async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const service = this.services.get(namespace, name);
    if (!service) {
      this.triggerTimes.deleteService(namespace, name);
      this.tracker.deleteService(key);
      return;
    }
    if (service.spec?.type === 'ExternalName') return;
    const selector = serviceSelector(service);
    if (!selector) return;

    const pods = this.pods.list(namespace, selector);
    const slices = this.slices
      .list(namespace, `${SERVICE_NAME_LABEL}=${name},${MANAGED_BY_LABEL}=${CONTROLLER_NAME}`)
      // Slices being deleted would only get in the way.
      .filter((slice) => !slice.metadata?.deletionTimestamp);
    if (this.tracker.staleSlices(key, slices)) throw new Error('EndpointSlice informer cache is out of date');
    const triggerTime = this.triggerTimes.compute(namespace, service, pods);
    try {
      await this.reconciler.reconcile(service, sortedByName(pods), slices, triggerTime);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.recorder.event(
        { ...service, apiVersion: 'v1', kind: 'Service' },
        'Warning',
        'FailedToUpdateEndpointSlices',
        `Error updating Endpoint Slices for Service ${key}: ${message}`,
      );
      throw error;
    }
  }
}

function managedByUs(slice: EndpointSlice): boolean {
  return slice.metadata?.labels?.[MANAGED_BY_LABEL] === CONTROLLER_NAME;
}

/** Pods in name order, so endpoints land in slices the same way every time. */
function sortedByName(pods: readonly Pod[]): Pod[] {
  return [...pods].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
}

export const endpointSliceController: ControllerDescriptor = {
  name: 'endpointslice-controller',
  create: (context) => new EndpointSliceController(context).controller,
};
