import { afterEach, describe, expect, it } from 'vitest';
import { findResource } from '../../../src/api/resources/lookup.js';
import type { ConfigMap } from '../../../src/api/types/core-v1.generated.js';
import { Controller } from '../../../src/client/controller.js';
import { SharedInformer } from '../../../src/client/informers/index.js';
import { ItemExponentialFailureRateLimiter, RateLimitingQueue } from '../../../src/client/workqueue/index.js';
import { eventually, FakeApiError, FakeResourceClient } from './fake-client.js';

const CONFIGMAPS = findResource('', 'v1', 'configmaps')!;

function configMap(name: string, owner?: string): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'ns', ...(owner ? { labels: { owner } } : {}) },
  };
}

const running: { abort: AbortController; done: Promise<void> }[] = [];
afterEach(async () => {
  for (const { abort, done } of running.splice(0)) {
    abort.abort();
    await done;
  }
});

function run(controller: Controller, informer?: SharedInformer<ConfigMap>): AbortController {
  const abort = new AbortController();
  const done = Promise.all([controller.run(abort.signal), informer?.run(abort.signal)]).then(() => {});
  running.push({ abort, done });
  return abort;
}

/** A queue whose retries come quickly: 1 ms doubling, at most 4 ms. */
const fastQueue = () => new RateLimitingQueue<string>(new ItemExponentialFailureRateLimiter(1, 4));

describe('Controller', () => {
  it('waits for the cache, then syncs the key of every object the informer reports', async () => {
    const client = new FakeResourceClient<ConfigMap>(CONFIGMAPS);
    client.put(configMap('a'));
    const informer = new SharedInformer<ConfigMap>(client, { log: () => {} });
    const synced: string[] = [];
    let cacheReadyAtFirstSync = false;
    const controller = new Controller({
      name: 'test',
      sync: async (key) => {
        if (synced.length === 0) cacheReadyAtFirstSync = informer.hasSynced();
        synced.push(key);
      },
    });
    controller.watch(informer);
    run(controller, informer);
    await eventually(() => synced.includes('ns/a'));
    expect(cacheReadyAtFirstSync).toBe(true);
    await eventually(() => client.openWatches === 1);
    client.put(configMap('b'));
    client.remove('ns', 'a');
    await eventually(() => synced.length === 3);
    expect(synced).toEqual(['ns/a', 'ns/b', 'ns/a']);
  });

  it('is caught up once it has synced what it found at start, not before', async () => {
    const client = new FakeResourceClient<ConfigMap>(CONFIGMAPS);
    client.put(configMap('a'));
    client.put(configMap('b'));
    const informer = new SharedInformer<ConfigMap>(client, { log: () => {} });
    const synced: string[] = [];
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const controller = new Controller({
      name: 'test',
      sync: async (key) => {
        if (key === 'ns/b') await held;
        synced.push(key);
      },
    });
    controller.watch(informer);
    let caughtUp = false;
    const whenCaughtUp = controller.caughtUp().then(() => {
      caughtUp = true;
    });
    run(controller, informer);
    await eventually(() => synced.includes('ns/a'));
    expect(caughtUp).toBe(false);
    release();
    await whenCaughtUp;
    expect(synced.sort()).toEqual(['ns/a', 'ns/b']);
  });

  it('maps objects to other keys (a child to its owner, old and new on update)', async () => {
    const client = new FakeResourceClient<ConfigMap>(CONFIGMAPS);
    client.put(configMap('child', 'parent-1'));
    const informer = new SharedInformer<ConfigMap>(client, { log: () => {} });
    const synced: string[] = [];
    const controller = new Controller({
      name: 'test',
      sync: async (key) => {
        synced.push(key);
      },
    });
    controller.watch(informer, (cm) =>
      cm.metadata?.labels?.owner ? `ns/${cm.metadata.labels.owner}` : undefined,
    );
    run(controller, informer);
    await eventually(() => synced.length === 1);
    await eventually(() => client.openWatches === 1);
    client.put(configMap('child', 'parent-2'));
    client.put(configMap('orphan'));
    await eventually(() => synced.length === 3);
    expect(synced.sort()).toEqual(['ns/parent-1', 'ns/parent-1', 'ns/parent-2']);
  });

  it('retries failures with backoff, forgets on success', async () => {
    let attempts = 0;
    const queue = fastQueue();
    const controller = new Controller({
      name: 'test',
      queue,
      log: () => {},
      sync: async () => {
        attempts++;
        if (attempts < 4) throw new Error('not yet');
      },
    });
    run(controller);
    controller.enqueueKey('ns/x');
    await eventually(() => attempts === 4);
    await eventually(() => queue.metrics().processing === 0);
    expect(queue.numRequeues('ns/x')).toBe(0);
    expect(queue.metrics().retries).toBe(3);
  });

  it('drops a key after maxRetries failures with a log line', async () => {
    const logs: string[] = [];
    let attempts = 0;
    const queue = fastQueue();
    const controller = new Controller({
      name: 'widget',
      queue,
      maxRetries: 3,
      log: (line) => logs.push(line),
      sync: async () => {
        attempts++;
        throw new Error('broken');
      },
    });
    run(controller);
    controller.enqueueKey('ns/x');
    await eventually(() => logs.some((line) => line.includes('dropping')));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(attempts).toBe(4);
    expect(logs.at(-1)).toBe('widget: dropping "ns/x" out of the queue: broken');
    expect(logs.filter((line) => line === 'widget: error syncing "ns/x": broken')).toHaveLength(3);
    expect(queue.numRequeues('ns/x')).toBe(0);
  });

  it('retries conflicts without logging them', async () => {
    const logs: string[] = [];
    let attempts = 0;
    const controller = new Controller({
      name: 'test',
      queue: fastQueue(),
      log: (line) => logs.push(line),
      sync: async () => {
        attempts++;
        if (attempts === 1) throw new FakeApiError(409, 'Conflict', 'the object has been modified');
      },
    });
    run(controller);
    controller.enqueueKey('k');
    await eventually(() => attempts === 2);
    expect(logs).toEqual([]);
  });

  it('requeues after the delay a sync asks for', async () => {
    const times: number[] = [];
    const controller = new Controller({
      name: 'test',
      sync: async () => {
        times.push(Date.now());
        return times.length < 2 ? { requeueAfterMs: 30 } : undefined;
      },
    });
    run(controller);
    controller.enqueueKey('k');
    await eventually(() => times.length === 2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(25);
  });

  it('runs N workers in parallel but never one key twice at a time', async () => {
    let active = 0;
    let maxActive = 0;
    const activeKeys = new Set<string>();
    let overlaps = 0;
    let calls = 0;
    const controller = new Controller({
      name: 'test',
      workers: 3,
      sync: async (key) => {
        calls++;
        if (activeKeys.has(key)) overlaps++;
        activeKeys.add(key);
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise((resolve) => setTimeout(resolve, 5));
        active--;
        activeKeys.delete(key);
      },
    });
    run(controller);
    for (let i = 0; i < 5; i++) {
      for (const key of ['a', 'b', 'c', 'd']) controller.enqueueKey(key);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await eventually(() => controller.queue.metrics().processing === 0 && controller.queue.length === 0);
    expect(overlaps).toBe(0);
    expect(maxActive).toBe(3);
    expect(calls).toBeLessThan(20); // repeats of a queued key were merged
  });

  it('run resolves when the signal aborts, after the sync in progress', async () => {
    let finished = false;
    const controller = new Controller({
      name: 'test',
      sync: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        finished = true;
      },
    });
    const abort = new AbortController();
    const done = controller.run(abort.signal);
    controller.enqueueKey('k');
    await new Promise((resolve) => setTimeout(resolve, 5));
    abort.abort();
    await done;
    expect(finished).toBe(true);
    expect(controller.queue.shuttingDown).toBe(true);
  });
});
