import type { KubeObject } from '../api/object.js';
import type { ResourceStore } from '../apiserver/registry/resource-store.js';
import { StatusError } from '../apiserver/status.js';
import { CompactedError, type Store } from '../storage/index.js';

/**
 * What every namespace gets, as kube-controller-manager's serviceaccount and root-ca-cert-
 * publisher controllers provide: a `default` ServiceAccount and the `kube-root-ca.crt`
 * ConfigMap with the cluster CA. Each namespace is synced idempotently on start and on
 * every namespace event; a namespace being deleted is left alone.
 *
 * It runs in the control plane on the registry directly until the client runtime (work
 * queues, informers) lands; the sync logic stays the same then.
 */
export class NamespaceDefaultsController {
  private stopped = false;
  private watch?: ReturnType<Store['watch']>;

  constructor(
    private readonly store: Store,
    private readonly namespaces: ResourceStore,
    private readonly serviceAccounts: ResourceStore,
    private readonly configMaps: ResourceStore,
    private readonly caCertificatePem: string,
  ) {}

  async start(): Promise<void> {
    const revision = await this.resyncAll();
    void this.follow(revision);
  }

  stop(): void {
    this.stopped = true;
    this.watch?.close();
  }

  private async resyncAll(): Promise<number> {
    const page = await this.namespaces.list('');
    await Promise.all(page.items.map((text) => this.sync(JSON.parse(text) as KubeObject)));
    return page.revision;
  }

  private async follow(revision: number): Promise<void> {
    let from = revision;
    while (!this.stopped) {
      try {
        this.watch = this.store.watch(this.namespaces.prefix(''), { afterRevision: from, prefix: true });
        for await (const batch of this.watch) {
          for (const event of batch) {
            if (event.type !== 'delete') await this.sync(JSON.parse(event.value!) as KubeObject);
          }
          from = batch[batch.length - 1]!.revision;
        }
        return;
      } catch (error) {
        if (this.stopped) return;
        if (error instanceof CompactedError) from = await this.resyncAll();
        else console.error('namespace defaults controller:', error);
      }
    }
  }

  /** Idempotent: creates what is missing in one namespace. */
  async sync(namespace: KubeObject): Promise<void> {
    const name = namespace.metadata?.name;
    if (!name || namespace.metadata?.deletionTimestamp) return;
    const account = ensure(() =>
      this.serviceAccounts.create(name, {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'default' },
      }),
    );
    const rootCa = ensure(() =>
      this.configMaps.create(name, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'kube-root-ca.crt',
          annotations: { 'kubernetes.io/description': ROOT_CA_DESCRIPTION },
        },
        data: { 'ca.crt': this.caCertificatePem },
      }),
    );
    await Promise.all([account, rootCa]);
  }
}

const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

async function ensure(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (error) {
    // Exists already, or the namespace started terminating meanwhile: nothing to do.
    if (error instanceof StatusError && (error.code === 409 || error.code === 403 || error.code === 404))
      return;
    throw error;
  }
}
