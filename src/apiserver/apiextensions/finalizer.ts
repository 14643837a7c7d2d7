// apiextensions-apiserver's CRD finalizer (pkg/controller/finalizer): a CRD marked for deletion
// has its instances deleted (each namespace's collection, then a wait until none is left), the
// Terminating condition says how far it got, and the cleanup finalizer is removed last.
import type { KubeObject } from '../../api/object.js';
import type { ResourceStore } from '../registry/resource-store.js';
import type { CrdCondition } from './crd-object.js';

/** How long the finalizer waits for instances held back by their own finalizers (upstream: 1 minute). */
const INSTANCE_WAIT_MS = 60_000;
const POLL_MS = 100;

/** deleteInstances: the Terminating condition to record once the instances are gone (or not). */
export async function deleteInstances(
  instances: ResourceStore,
): Promise<{ condition: CrdCondition; done: boolean }> {
  const failed = (reason: string, message: string) => ({
    condition: { type: 'Terminating', status: 'True', reason, message },
    done: false,
  });
  let items: KubeObject[];
  try {
    items = (await instances.list('')).items.map((text) => JSON.parse(text) as KubeObject);
  } catch (error) {
    return failed('InstanceDeletionFailed', `could not list instances: ${String(error)}`);
  }
  const namespaces = new Set(items.map((item) => item.metadata?.namespace ?? ''));
  const errors: string[] = [];
  for (const namespace of namespaces) {
    try {
      await instances.deleteCollection(namespace, {}, {});
    } catch (error) {
      errors.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (errors.length > 0) {
    const message = errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
    return failed('InstanceDeletionFailed', `could not issue all deletes: ${message}`);
  }
  const deadline = Date.now() + INSTANCE_WAIT_MS;
  for (;;) {
    const remaining = (await instances.list('', { limit: 1 })).items.length;
    if (remaining === 0) break;
    if (Date.now() > deadline) {
      return failed(
        'InstanceDeletionCheck',
        'could not confirm zero CustomResources remaining: timed out waiting for the condition',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return {
    condition: {
      type: 'Terminating',
      status: 'False',
      reason: 'InstanceDeletionCompleted',
      message: 'removed all instances',
    },
    done: true,
  };
}
