// The EndpointSlice mirroring controller (pkg/controller/endpointslicemirroring): Endpoints that
// someone writes by hand for a Service without a selector are mirrored into EndpointSlices
// (managed-by endpointslicemirroring-controller.k8s.io), so slice readers see them too. Endpoints
// labelled skip-mirror, or carrying a leader-election record, are not mirrored; a Service that gains
// a selector, or Endpoints or a Service that go away, take their mirrored slices with them.
import type { Endpoints, Service } from '../../api/types/core-v1.generated.js';
import type { EndpointSlice } from '../../api/types/discovery-v1.generated.js';
import { Controller, objectOf, splitKey } from '../../client/controller.js';
import type { EventRecorder } from '../../client/events/index.js';
import type { Lister } from '../../client/informers/index.js';
import { ENDPOINT_SLICES, ENDPOINTS, SERVICES } from '../../client/resources.js';
import type { ControllerContext, ControllerDescriptor } from '../context.js';
import { MANAGED_BY_LABEL, SERVICE_NAME_LABEL } from '../endpointslice/slice-contents.js';
import { EndpointSliceTracker, serviceKeyOf } from '../endpointslice/slice-tracker.js';
import { MIRRORING_CONTROLLER_NAME, MirroringReconciler } from './mirroring-reconciler.js';

const SERVICE_ACCOUNT = 'endpointslicemirroring-controller';
/** `--mirroring-max-endpoints-per-subset`'s default. */
const MAX_ENDPOINTS_PER_SUBSET = 1000;
/** `--mirroring-endpointslice-updates-batch-period`'s spirit: slice events coalesce for a second. */
const SLICE_CHANGE_MIN_SYNC_DELAY_MS = 1000;
const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
const LEADER_ELECTION_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';

export class EndpointSliceMirroringController {
  readonly controller: Controller;
  private readonly endpoints: Lister<Endpoints>;
  private readonly services: Lister<Service>;
  private readonly slices: Lister<EndpointSlice>;
  private readonly recorder: EventRecorder;
  private readonly tracker = new EndpointSliceTracker();
  private readonly reconciler: MirroringReconciler;

  constructor(context: ControllerContext) {
    this.recorder = context.recorderFor(SERVICE_ACCOUNT, 'endpoint-slice-mirroring-controller');
    const endpoints = context.informers.informerFor<Endpoints>(ENDPOINTS);
    const services = context.informers.informerFor<Service>(SERVICES);
    const slices = context.informers.informerFor<EndpointSlice>(ENDPOINT_SLICES);
    this.endpoints = endpoints.lister;
    this.services = services.lister;
    this.slices = slices.lister;
    this.reconciler = new MirroringReconciler(
      context.clientFor(SERVICE_ACCOUNT),
      this.recorder,
      MAX_ENDPOINTS_PER_SUBSET,
      this.tracker,
    );
    this.controller = new Controller({
      name: 'endpointslice-mirroring',
      sync: (key) => this.sync(key),
      workers: 5,
      waitFor: [services, slices],
    });
    endpoints.addEventHandler({
      onAdd: (object) => {
        if (shouldMirror(object)) this.controller.enqueue(object);
      },
      onUpdate: (old, object) => {
        if (shouldMirror(old) || shouldMirror(object)) this.controller.enqueue(object);
      },
      onDelete: (deleted) => {
        if (shouldMirror(objectOf(deleted))) this.controller.enqueue(deleted);
      },
    });
    services.addEventHandler({
      onAdd: (service) => this.controller.enqueue(service),
      onUpdate: (old, service) => {
        // Only gaining or losing a selector changes whether the Endpoints are mirrored.
        if ((old.spec?.selector === undefined) !== (service.spec?.selector === undefined))
          this.controller.enqueue(service);
      },
      onDelete: (deleted) => this.controller.enqueue(deleted),
    });
    slices.addEventHandler({
      onAdd: (slice) => {
        if (mirrored(slice) && this.tracker.shouldSync(slice)) this.enqueueForSlice(slice);
      },
      onUpdate: (old, slice) => {
        // A slice relabelled to another service, or to another manager, needs both sides looked at.
        if (old.metadata?.labels?.[SERVICE_NAME_LABEL] !== slice.metadata?.labels?.[SERVICE_NAME_LABEL]) {
          if (mirrored(old)) this.enqueueForSlice(old);
          if (mirrored(slice)) this.enqueueForSlice(slice);
          return;
        }
        if (mirrored(old) !== mirrored(slice) || (mirrored(slice) && this.tracker.shouldSync(slice)))
          this.enqueueForSlice(slice);
      },
      onDelete: (deleted) => {
        const slice = objectOf(deleted);
        // A deletion this controller did not make needs the slice back.
        if (mirrored(slice) && this.tracker.has(slice) && !this.tracker.handleDeletion(slice))
          this.enqueueForSlice(slice);
      },
    });
  }

  private enqueueForSlice(slice: EndpointSlice): void {
    if (!slice.metadata?.labels?.[SERVICE_NAME_LABEL]) return;
    this.controller.enqueueAfter(serviceKeyOf(slice), SLICE_CHANGE_MIN_SYNC_DELAY_MS);
  }

  async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const endpoints = this.endpoints.get(namespace, name);
    const service = this.services.get(namespace, name);
    if (!endpoints || !shouldMirror(endpoints) || !service || service.spec?.selector !== undefined) {
      this.tracker.deleteService(key);
      await this.reconciler.deleteSlices(namespace, name, this.mirroredSlices(namespace, name));
      return;
    }
    const slices = this.mirroredSlices(namespace, name);
    if (this.tracker.staleSlices(key, slices)) throw new Error('EndpointSlice informer cache is out of date');
    await this.reconciler.reconcile(endpoints, slices);
  }

  private mirroredSlices(namespace: string, name: string): EndpointSlice[] {
    return this.slices.list(
      namespace,
      `${SERVICE_NAME_LABEL}=${name},${MANAGED_BY_LABEL}=${MIRRORING_CONTROLLER_NAME}`,
    );
  }
}

function shouldMirror(endpoints: Endpoints): boolean {
  return (
    endpoints.metadata?.labels?.[SKIP_MIRROR_LABEL] !== 'true' &&
    endpoints.metadata?.annotations?.[LEADER_ELECTION_ANNOTATION] === undefined
  );
}

function mirrored(slice: EndpointSlice): boolean {
  return slice.metadata?.labels?.[MANAGED_BY_LABEL] === MIRRORING_CONTROLLER_NAME;
}

export const endpointSliceMirroringController: ControllerDescriptor = {
  name: 'endpointslice-mirroring-controller',
  create: (context) => new EndpointSliceMirroringController(context).controller,
};
