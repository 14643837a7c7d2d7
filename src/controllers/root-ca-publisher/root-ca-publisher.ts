// The root CA certificate publisher: every namespace has the ConfigMap `kube-root-ca.crt` holding
// the cluster CA as `ca.crt` (what the projected `kube-api-access-*` volumes mount), recreated when
// deleted and restored when its data or description annotation change.
import type { ConfigMap, Namespace } from '../../api/types/core-v1.generated.js';
import { Controller, objectOf } from '../../client/controller.js';
import { CONFIG_MAPS, NAMESPACES } from '../../client/resources.js';
import { hasStatusCause, isNotFound } from '../../client/rest/index.js';
import { type ControllerContext, type ControllerDescriptor, IDLE_CONTROLLER } from '../context.js';

export const ROOT_CA_CONFIG_MAP = 'kube-root-ca.crt';
export const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
export const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';

const SERVICE_ACCOUNT = 'root-ca-cert-publisher';

export class RootCaPublisher {
  readonly controller: Controller;

  constructor(
    private readonly context: ControllerContext,
    private readonly rootCaPem: string,
  ) {
    const configMaps = context.informers.informerFor<ConfigMap>(CONFIG_MAPS);
    const namespaces = context.informers.informerFor<Namespace>(NAMESPACES);
    this.controller = new Controller({
      name: 'root-ca-cert-publisher',
      sync: (key) => this.sync(key),
      waitFor: [configMaps, namespaces],
    });
    const namespaceOf = (configMap: ConfigMap) =>
      configMap.metadata?.name === ROOT_CA_CONFIG_MAP ? configMap.metadata.namespace : undefined;
    configMaps.addEventHandler({
      onUpdate: (_old, configMap) => this.enqueue(namespaceOf(configMap)),
      onDelete: (deleted) => this.enqueue(namespaceOf(objectOf(deleted))),
    });
    namespaces.addEventHandler({
      onAdd: (namespace) => this.enqueue(namespace.metadata?.name),
      onUpdate: (_old, namespace) => {
        if (namespace.status?.phase === 'Active') this.enqueue(namespace.metadata?.name);
      },
    });
  }

  private enqueue(namespace: string | undefined): void {
    if (namespace) this.controller.enqueueKey(namespace);
  }

  async sync(namespace: string): Promise<void> {
    const client = this.context.clientFor(SERVICE_ACCOUNT).resource<ConfigMap>(CONFIG_MAPS);
    const current = this.context.informers
      .listerFor<ConfigMap>(CONFIG_MAPS)
      .get(namespace, ROOT_CA_CONFIG_MAP);
    const data = { 'ca.crt': this.rootCaPem };
    if (!current) {
      try {
        await client.create({
          metadata: {
            name: ROOT_CA_CONFIG_MAP,
            namespace,
            annotations: { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION },
          },
          data,
        });
      } catch (error) {
        // No retries for a namespace that is gone or going.
        if (isNotFound(error) || hasStatusCause(error, 'NamespaceTerminating')) return;
        throw error;
      }
      return;
    }
    if (sameData(current.data, data) && current.metadata?.annotations?.[DESCRIPTION_ANNOTATION]) return;
    const restored = structuredClone(current);
    restored.data = data;
    restored.metadata = {
      ...restored.metadata,
      annotations: { ...restored.metadata?.annotations, [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION },
    };
    await client.update(restored);
  }
}

function sameData(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const keys = Object.keys(a ?? {});
  return keys.length === Object.keys(b).length && keys.every((key) => a?.[key] === b[key]);
}

export const rootCaPublisherController: ControllerDescriptor = {
  name: 'root-ca-certificate-publisher-controller',
  // Without a CA to publish there is nothing to run.
  create: (context) =>
    context.settings.rootCaPem
      ? new RootCaPublisher(context, context.settings.rootCaPem).controller
      : IDLE_CONTROLLER,
};
