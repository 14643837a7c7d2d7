// Upstream: pkg/controlplane/reconcilers (the lease endpoint reconciler, here with the one
// apiserver there is) and its endpointsadapter.go. Keeps the `default/kubernetes` Endpoints and
// EndpointSlice pointing at this apiserver's address and port, at start and every 10 seconds.
import { networkInterfaces } from 'node:os';
import type { KubeObject } from '../api/object.js';
import type { ApiServer } from '../apiserver/api-server.js';
import type { ResourceStore } from '../apiserver/registry/resource-store.js';
import { StatusError } from '../apiserver/status.js';

/** EndpointReconcilerInterval's default. */
export const KUBERNETES_ENDPOINTS_INTERVAL_MS = 10_000;
const NAMESPACE = 'default';
const NAME = 'kubernetes';
/** The mirroring controller leaves Endpoints with this label alone: the apiserver writes the slice. */
const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';
const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

const UNADVERTISABLE = new Set(['127.0.0.1', '0.0.0.0', '::', '::1']);

/**
 * The address the apiserver advertises to pods (DefaultAdvertiseAddress): the first bind
 * address that is neither loopback nor unspecified, else the host's first non-internal IPv4
 * address, as upstream resolves a loopback bind address; undefined when there is none.
 */
export function advertiseAddress(bindAddresses: readonly string[]): string | undefined {
  const bound = bindAddresses.find((address) => !UNADVERTISABLE.has(address));
  if (bound !== undefined) return bound;
  for (const addresses of Object.values(networkInterfaces())) {
    const external = addresses?.find((address) => address.family === 'IPv4' && !address.internal);
    if (external) return external.address;
  }
  return undefined;
}

interface EndpointsShape extends KubeObject {
  subsets?: {
    addresses?: { ip: string }[];
    notReadyAddresses?: unknown[];
    ports?: { name?: string; port: number; protocol?: string }[];
  }[];
}

export class KubernetesEndpointsReconciler {
  private readonly endpoints: ResourceStore;
  private readonly slices: ResourceStore;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    api: ApiServer,
    private readonly address: string,
    private readonly port: number,
  ) {
    this.endpoints = api.resourceStore('', 'v1', 'endpoints')!;
    this.slices = api.resourceStore('discovery.k8s.io', 'v1', 'endpointslices')!;
  }

  /** Reconciles now, then every interval until stopped; failures wait for the next round. */
  start(intervalMs = KUBERNETES_ENDPOINTS_INTERVAL_MS): Promise<void> {
    const first = this.reconcile();
    this.timer = setInterval(() => {
      this.running = this.reconcile().catch((error: unknown) => {
        console.error(`kubernetes endpoints: ${error instanceof Error ? error.message : String(error)}`);
      });
    }, intervalMs);
    this.timer.unref();
    return first;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** ReconcileEndpoints: the one subset holds this apiserver's address and the `https` port. */
  async reconcile(): Promise<void> {
    const existing = (await this.endpoints.find(NAMESPACE, NAME)) as EndpointsShape | undefined;
    const desired: EndpointsShape = existing ?? {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: NAME, namespace: NAMESPACE },
    };
    const subsetsCorrect = this.subsetsCorrect(desired);
    if (!subsetsCorrect) {
      desired.subsets = [
        { addresses: [{ ip: this.address }], ports: [{ name: 'https', port: this.port, protocol: 'TCP' }] },
      ];
    }
    const labels = desired.metadata?.labels ?? {};
    const skipMirrorChanged = labels[SKIP_MIRROR_LABEL] !== 'true';
    desired.metadata = { ...desired.metadata, labels: { ...labels, [SKIP_MIRROR_LABEL]: 'true' } };
    let written: EndpointsShape = desired;
    if (!existing) written = await this.createIgnoringRace(desired);
    else if (!subsetsCorrect || skipMirrorChanged)
      written = (await this.endpoints.update(NAMESPACE, NAME, desired)).object as EndpointsShape;
    await this.ensureSlice(written);
  }

  private subsetsCorrect(endpoints: EndpointsShape): boolean {
    const subsets = endpoints.subsets ?? [];
    if (subsets.length !== 1) return false;
    const [subset] = subsets;
    const addresses = subset?.addresses ?? [];
    const ports = subset?.ports ?? [];
    return (
      addresses.length === 1 &&
      addresses[0]?.ip === this.address &&
      (subset?.notReadyAddresses ?? []).length === 0 &&
      ports.length === 1 &&
      ports[0]?.name === 'https' &&
      ports[0]?.port === this.port &&
      (ports[0]?.protocol ?? 'TCP') === 'TCP'
    );
  }

  private async createIgnoringRace(endpoints: EndpointsShape): Promise<EndpointsShape> {
    try {
      return (await this.endpoints.create(NAMESPACE, structuredClone(endpoints))) as EndpointsShape;
    } catch (error) {
      if (error instanceof StatusError && error.code === 409) return endpoints;
      throw error;
    }
  }

  /** EnsureEndpointSliceFromEndpoints: the slice the Endpoints translate to, written when it differs. */
  private async ensureSlice(endpoints: EndpointsShape): Promise<void> {
    const subset = endpoints.subsets?.[0];
    const desired: KubeObject = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: NAME, namespace: NAMESPACE, labels: { [SERVICE_NAME_LABEL]: NAME } },
      addressType: 'IPv4',
      endpoints: (subset?.addresses ?? []).map((address) => ({
        addresses: [address.ip],
        conditions: { ready: true },
      })),
      ports: (subset?.ports ?? []).map((port) => ({
        name: port.name ?? '',
        port: port.port,
        protocol: port.protocol ?? 'TCP',
      })),
    };
    const current = await this.slices.find(NAMESPACE, NAME);
    if (!current) {
      try {
        await this.slices.create(NAMESPACE, desired);
      } catch (error) {
        if (!(error instanceof StatusError && error.code === 409)) throw error;
      }
      return;
    }
    const same = (field: string) => JSON.stringify(current[field]) === JSON.stringify(desired[field]);
    if (
      same('endpoints') &&
      same('ports') &&
      JSON.stringify(current.metadata?.labels ?? {}) === JSON.stringify(desired.metadata?.labels)
    ) {
      return;
    }
    await this.slices.update(NAMESPACE, NAME, desired);
  }
}
