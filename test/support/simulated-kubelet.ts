// What a kubelet reports about a pod it runs, for tests without nodes: the pod Running with an IP
// and a Ready condition, written to pods/status.
import type { Pod } from '../../src/api/types/core-v1.generated.js';
import { PODS } from '../../src/client/resources.js';
import type { Client } from '../../src/client/types.js';

/** A metav1.Time for now. */
export function metaNow(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

export function markPodRunning(
  client: Client,
  namespace: string,
  name: string,
  options: { readonly ip: string; readonly ready: boolean },
): Promise<Pod> {
  return client.resource<Pod>(PODS).patch(
    namespace,
    name,
    'merge',
    {
      status: {
        phase: 'Running',
        podIP: options.ip,
        podIPs: [{ ip: options.ip }],
        conditions: [readyCondition(options.ready)],
      },
    },
    { subresource: 'status' },
  );
}

/** Flips the pod's Ready condition (its transition time is now). */
export async function setPodReady(
  client: Client,
  namespace: string,
  name: string,
  ready: boolean,
): Promise<void> {
  await client
    .resource<Pod>(PODS)
    .patch(
      namespace,
      name,
      'merge',
      { status: { conditions: [readyCondition(ready)] } },
      { subresource: 'status' },
    );
}

function readyCondition(ready: boolean) {
  return { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: metaNow() };
}
