// Creating and deleting a controller's pods with the events Kubernetes records for them
// (RealPodControl in pkg/controller/controller_utils.go).

import { isDns1123Subdomain } from '../../api/selectors/index.js';
import type { Pod, PodTemplateSpec } from '../../api/types/core-v1.generated.js';
import type { OwnerReference } from '../../api/types/meta-v1.generated.js';
import type { EventRecorder } from '../../client/events/index.js';
import { PODS } from '../../client/resources.js';
import { hasStatusCause, isNotFound } from '../../client/rest/index.js';
import type { ApiObject, Client, ResourceClient } from '../../client/types.js';

/** The cause the apiserver gives when a namespace being deleted refuses new objects. */
export const NAMESPACE_TERMINATING_CAUSE = 'NamespaceTerminating';

/** `<name>-` for generateName, or the bare name when the dash would make an invalid name. */
function podNamePrefix(controllerName: string): string {
  // ValidatePodName with prefix=true masks the trailing dash before checking.
  return isDns1123Subdomain(`${controllerName}a`).length === 0 ? `${controllerName}-` : controllerName;
}

/** A pod as a controller creates it from its template (GetPodFromTemplate). */
export function podFromTemplate(
  template: PodTemplateSpec,
  parent: ApiObject,
  controllerRef: OwnerReference | undefined,
): Pod {
  const meta = template.metadata ?? {};
  const pod: Pod = {
    metadata: {
      generateName: podNamePrefix(parent.metadata?.name ?? ''),
      ...(meta.labels ? { labels: { ...meta.labels } } : {}),
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
      ...(controllerRef ? { ownerReferences: [{ ...controllerRef }] } : {}),
    },
    spec: structuredClone(template.spec ?? { containers: [] }),
  };
  return pod;
}

export class PodControl {
  private readonly pods: ResourceClient<Pod>;

  constructor(
    client: Client,
    private readonly recorder: EventRecorder,
  ) {
    this.pods = client.resource<Pod>(PODS);
  }

  /** Creates one pod from the template, owned by `controllerRef`; records SuccessfulCreate or FailedCreate. */
  async createPod(
    namespace: string,
    template: PodTemplateSpec,
    parent: ApiObject,
    controllerRef: OwnerReference,
  ): Promise<Pod> {
    const pod = podFromTemplate(template, parent, controllerRef);
    if (Object.keys(pod.metadata?.labels ?? {}).length === 0) {
      throw new Error('unable to create pods, no labels');
    }
    let created: Pod;
    try {
      created = await this.pods.create({ ...pod, metadata: { ...pod.metadata, namespace } });
    } catch (error) {
      if (!hasStatusCause(error, NAMESPACE_TERMINATING_CAUSE)) {
        this.recorder.event(parent, 'Warning', 'FailedCreate', `Error creating: ${messageOf(error)}`);
      }
      throw error;
    }
    this.recorder.event(parent, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name}`);
    return created;
  }

  /** Deletes a pod; records SuccessfulDelete or FailedDelete (a pod already gone throws NotFound, unrecorded). */
  async deletePod(namespace: string, name: string, parent: ApiObject): Promise<void> {
    try {
      await this.pods.delete(namespace, name);
    } catch (error) {
      if (isNotFound(error)) throw error;
      this.recorder.event(parent, 'Warning', 'FailedDelete', `Error deleting: ${messageOf(error)}`);
      throw new Error(`unable to delete pods: ${messageOf(error)}`, { cause: error });
    }
    this.recorder.event(parent, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
  }

  /** A strategic merge patch of a pod (adoption and release). */
  async patchPod(namespace: string, name: string, patch: unknown): Promise<void> {
    await this.pods.patch(namespace, name, 'strategic', patch);
  }
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
