import { describe, expect, it } from 'vitest';
import { SchedulerCache } from '../../../../src/scheduler/cache/cache.js';
import { Snapshot } from '../../../../src/scheduler/cache/snapshot.js';
import { Framework } from '../../../../src/scheduler/framework/framework.js';
import { calculatePriority, ImageLocality } from '../../../../src/scheduler/plugins/image-locality.js';
import { node, pod, scoresOf, testHandle } from '../fixtures.js';

const MB = 1024 * 1024;

function clusterWith(...nodes: ReturnType<typeof node>[]) {
  const cache = new SchedulerCache();
  for (const member of nodes) cache.addNode(member);
  const snapshot = new Snapshot();
  cache.updateSnapshot(snapshot);
  const handle = testHandle(snapshot);
  const framework = new Framework(
    { schedulerName: 'default-scheduler', plugins: [{ create: (h) => new ImageLocality(h) }] },
    handle,
  );
  return { snapshot, framework };
}

describe('ImageLocality', () => {
  it('prefers the node holding the larger image, scaled by how many nodes have it', () => {
    const { snapshot, framework } = clusterWith(
      node('node1', {
        images: [
          { names: ['gcr.io/40:latest', 'gcr.io/40:v1'], sizeBytes: 40 * MB },
          { names: ['gcr.io/300:latest'], sizeBytes: 300 * MB },
        ],
      }),
      node('node2', { images: [{ names: ['gcr.io/250:latest'], sizeBytes: 250 * MB }] }),
    );
    const wanting = pod('p', {
      containers: [
        { name: 'a', image: 'gcr.io/40' },
        { name: 'b', image: 'gcr.io/250' },
      ],
    });
    // node1: 40 MB × 1/2 = 20 MB, below the 23 MB threshold → 0.
    // node2: 250 MB × 1/2 = 125 MB → 100 × (125 − 23) / (2000 − 23) → 5.
    expect(scoresOf(framework, wanting, snapshot.nodeInfoList)).toEqual({ node1: 0, node2: 5 });
  });

  it('an image on every node weighs fully; tags must match', () => {
    const { snapshot, framework } = clusterWith(
      node('node1', { images: [{ names: ['app:v1'], sizeBytes: 500 * MB }] }),
      node('node2', { images: [{ names: ['app:v2'], sizeBytes: 500 * MB }] }),
    );
    const scores = scoresOf(
      framework,
      pod('p', { containers: [{ name: 'a', image: 'app:v1' }] }),
      snapshot.nodeInfoList,
    );
    expect(scores.node2).toBe(0);
    expect(scores.node1).toBe(calculatePriority(250 * MB, 1));
  });

  it('clamps between 23 MB and 1000 MB per container', () => {
    expect(calculatePriority(0, 1)).toBe(0);
    expect(calculatePriority(5000 * MB, 1)).toBe(100);
    expect(calculatePriority(1000 * MB, 2)).toBe(Math.trunc((100 * (977 * MB)) / (1977 * MB)));
  });
});
