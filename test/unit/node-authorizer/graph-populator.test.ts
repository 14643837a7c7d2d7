// The node graph fed from the store: pod writes that cannot change it (no node yet, a status
// update on the same node) are told apart from the JSON text; the rest reach the graph.
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { NodeGraphPopulator } from '../../../src/apiserver/auth/node/graph-populator.js';
import { openStore } from '../storage/support.js';

const KEY = '/registry/pods/ns/web';

function pod(nodeName: string | undefined, status: Pod['status'] = {}, annotations = {}): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'ns', uid: 'web-uid', annotations },
    spec: {
      ...(nodeName === undefined ? {} : { nodeName }),
      containers: [
        { name: 'c', env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }] },
      ],
      imagePullSecrets: [{ name: 'pull' }],
      resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'gpu-template' }],
    },
    status,
  });
}

async function populated() {
  const { store } = openStore();
  const populator = new NodeGraphPopulator(store);
  await populator.start();
  onTestFinished(() => populator.stop());
  return { store, graph: populator.graph, synced: () => populator.synced() };
}

describe('NodeGraphPopulator', () => {
  it('adds a pod once bound, keeps it through status updates, and drops it when deleted', async () => {
    const { store, graph, synced } = await populated();
    // Text that only looks like the field, escaped inside an annotation, is not a node.
    await store.create(KEY, pod(undefined, {}, { note: JSON.stringify({ nodeName: 'a' }) }));
    await synced();
    expect(graph.reaches('a', 'secret', 'ns', 'pull')).toBe(false);
    await store.update(KEY, pod('a'));
    await synced();
    expect(graph.reaches('a', 'secret', 'ns', 'pull')).toBe(true);
    await store.update(KEY, pod('a', { phase: 'Running' }));
    await synced();
    expect(graph.reaches('a', 'pod', 'ns', 'web')).toBe(true);
    await store.delete(KEY);
    await synced();
    expect(graph.reaches('a', 'secret', 'ns', 'pull')).toBe(false);
  });

  it('takes a status update that names a resource claim', async () => {
    const { store, graph, synced } = await populated();
    await store.create(KEY, pod('a'));
    await store.update(
      KEY,
      pod('a', { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'web-gpu-x1' }] }),
    );
    await synced();
    expect(graph.reaches('a', 'resourceclaim', 'ns', 'web-gpu-x1')).toBe(true);
    await store.update(KEY, pod('a', { phase: 'Running' }));
    await synced();
    expect(graph.reaches('a', 'resourceclaim', 'ns', 'web-gpu-x1')).toBe(false);
  });
});
