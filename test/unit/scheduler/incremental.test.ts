// The tallies kept across cycles (snapshot change log, aggregates) must give the same counts as
// counting every pod afresh: checked after every step of a random workload with deletions.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { PodInfo } from '../../../src/scheduler/cache/pod-info.js';
import { CycleState } from '../../../src/scheduler/framework/cycle-state.js';
import type { AffinityFilterState } from '../../../src/scheduler/plugins/inter-pod-affinity/filtering.js';
import { TopologyCounts } from '../../../src/scheduler/plugins/inter-pod-affinity/topology-counts.js';
import { computeFilterState } from '../../../src/scheduler/plugins/pod-topology-spread/filtering.js';
import type { SpreadFilterState } from '../../../src/scheduler/plugins/pod-topology-spread/plugin.js';
import { node, pod } from './fixtures.js';
import { harness } from './harness.js';

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function pairs(counts: TopologyCounts): string[] {
  const out: string[] = [];
  counts.eachPair((key, value, count) => out.push(`${key}=${value}:${count}`));
  return out.sort();
}

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';

function probe(app: string): Pod {
  return pod('probe', {
    labels: { app },
    spec: {
      affinity: {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: ZONE, labelSelector: { matchLabels: { app } } },
          ],
        },
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: HOST, labelSelector: { matchLabels: { app } } },
          ],
        },
      },
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: ZONE,
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { app } },
        },
      ],
    },
  });
}

describe('incremental tallies', () => {
  it('match counting from scratch through adds, binds and deletes', async () => {
    const next = random(42);
    const h = harness();
    for (let index = 0; index < 12; index++) {
      h.scheduler.onNodeAdd(node(`n${index}`, { cpu: '8', labels: { [ZONE]: `z${index % 3}` } }));
    }
    const apps = ['a', 'b', 'c'];
    let created = 0;
    for (let step = 0; step < 60; step++) {
      const app = apps[Math.floor(next() * apps.length)]!;
      const spec =
        next() < 0.5
          ? {
              affinity: {
                podAntiAffinity: {
                  requiredDuringSchedulingIgnoredDuringExecution: [
                    { topologyKey: HOST, labelSelector: { matchLabels: { app } } },
                  ],
                },
              },
            }
          : {};
      h.add(pod(`p${created++}`, { labels: { app }, cpu: '100m', spec }));
      if (next() < 0.25 && h.pods.size > 3) {
        const bound = [...h.pods.values()].filter((member) => member.spec?.nodeName);
        const victim = bound[Math.floor(next() * bound.length)];
        if (victim) h.remove(victim.metadata!.name!);
      }
      await h.drain();

      const framework = h.scheduler.frameworks.get('default-scheduler')!;
      const snapshot = h.scheduler.algorithm.snapshot;
      h.scheduler.cache.updateSnapshot(snapshot);
      for (const app of apps) {
        const podInfo = new PodInfo(probe(app));
        const state = new CycleState();
        framework.runPreFilterPlugins(state, podInfo, snapshot.nodeInfoList);
        const affinity = state.read<AffinityFilterState>('PreFilterInterPodAffinity');
        const expectedExisting = new TopologyCounts();
        const expectedAffinity = new TopologyCounts();
        const expectedAnti = new TopologyCounts();
        for (const info of snapshot.nodeInfoList) {
          for (const existing of info.pods) {
            expectedExisting.updateWithAntiAffinityTerms(
              existing.requiredAntiAffinityTerms,
              podInfo.pod,
              undefined,
              info.labels,
              1,
            );
            expectedAffinity.updateWithAffinityTerms(
              podInfo.requiredAffinityTerms,
              existing.pod,
              info.labels,
              1,
            );
            expectedAnti.updateWithAntiAffinityTerms(
              podInfo.requiredAntiAffinityTerms,
              existing.pod,
              undefined,
              info.labels,
              1,
            );
          }
        }
        expect(pairs(affinity!.existingAntiAffinityCounts)).toEqual(pairs(expectedExisting));
        expect(pairs(affinity!.affinityCounts)).toEqual(pairs(expectedAffinity));
        expect(pairs(affinity!.antiAffinityCounts)).toEqual(pairs(expectedAnti));

        const spread = state.read<SpreadFilterState>('PreFilterPodTopologySpread')!;
        const fresh = computeFilterState(podInfo, spread.constraints, snapshot.nodeInfoList);
        expect(spread.tpValueToMatchNum.map((counts) => [...counts].sort())).toEqual(
          fresh.tpValueToMatchNum.map((counts) => [...counts].sort()),
        );
        expect(spread.minMatchNum(0)).toBe(fresh.minMatchNum(0));
      }
    }
    expect(h.bindings.length).toBeGreaterThan(30);
  });
});
