import { describe, expect, it } from 'vitest';
import { labelSelectorFromSet } from '../../../src/api/selectors/index.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { Indexer, Lister, NAMESPACE_INDEX } from '../../../src/client/informers/index.js';

function pod(namespace: string, name: string, labels: Record<string, string> = {}, node?: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace, name, labels },
    spec: { containers: [], ...(node ? { nodeName: node } : {}) },
  };
}

const byNode = (object: Pod): string[] => (object.spec?.nodeName ? [object.spec.nodeName] : []);

describe('Indexer', () => {
  it('stores by key and indexes by namespace', () => {
    const indexer = new Indexer<Pod>();
    indexer.add(pod('a', 'p1'));
    indexer.add(pod('a', 'p2'));
    indexer.add(pod('b', 'p1'));
    expect(indexer.listKeys().sort()).toEqual(['a/p1', 'a/p2', 'b/p1']);
    expect(indexer.getByKey('b/p1')?.metadata?.namespace).toBe('b');
    expect(indexer.indexKeys(NAMESPACE_INDEX, 'a').sort()).toEqual(['a/p1', 'a/p2']);
    indexer.delete(pod('a', 'p1'));
    expect(indexer.byIndex(NAMESPACE_INDEX, 'a').map((p) => p.metadata?.name)).toEqual(['p2']);
    expect(indexer.size).toBe(2);
  });

  it('moves an object between index values on update and drops empty values', () => {
    const indexer = new Indexer<Pod>({ node: byNode });
    indexer.add(pod('a', 'p1', {}, 'n1'));
    indexer.add(pod('a', 'p2', {}, 'n1'));
    indexer.update(pod('a', 'p1', {}, 'n2'));
    expect(indexer.indexKeys('node', 'n1')).toEqual(['a/p2']);
    expect(indexer.indexKeys('node', 'n2')).toEqual(['a/p1']);
    indexer.deleteKey('a/p2');
    expect(indexer.listIndexFuncValues('node')).toEqual(['n2']);
    expect(indexer.index('node', pod('x', 'y', {}, 'n2')).map((p) => p.metadata?.name)).toEqual(['p1']);
  });

  it('indexes existing objects when an index is added later; rejects unknown and duplicate names', () => {
    const indexer = new Indexer<Pod>();
    indexer.add(pod('a', 'p1', {}, 'n1'));
    indexer.addIndexers({ node: byNode });
    expect(indexer.indexKeys('node', 'n1')).toEqual(['a/p1']);
    expect(() => indexer.addIndexers({ node: byNode })).toThrow('indexer conflict: node');
    expect(() => indexer.byIndex('nope', 'x')).toThrow('Index with name nope does not exist');
  });

  it('replace swaps the whole content and its indexes', () => {
    const indexer = new Indexer<Pod>({ node: byNode });
    indexer.add(pod('a', 'old', {}, 'n1'));
    indexer.replace([pod('b', 'new', {}, 'n2')]);
    expect(indexer.listKeys()).toEqual(['b/new']);
    expect(indexer.indexKeys('node', 'n1')).toEqual([]);
    expect(indexer.indexKeys(NAMESPACE_INDEX, 'b')).toEqual(['b/new']);
  });
});

describe('Lister', () => {
  const indexer = new Indexer<Pod>();
  indexer.add(pod('a', 'web-1', { app: 'web', tier: 'front' }));
  indexer.add(pod('a', 'db-1', { app: 'db' }));
  indexer.add(pod('b', 'web-2', { app: 'web' }));
  indexer.add({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'cluster-scoped-like' } });
  const lister = new Lister(indexer);
  const names = (pods: Pod[]) => pods.map((p) => p.metadata?.name).sort();

  it('gets by namespace and name', () => {
    expect(lister.get('a', 'db-1')?.metadata?.labels).toEqual({ app: 'db' });
    expect(lister.get('b', 'db-1')).toBeUndefined();
    expect(lister.get('', 'cluster-scoped-like')).toBeDefined();
  });

  it('lists a namespace or all, filtered by a label selector text or object', () => {
    expect(names(lister.list('a'))).toEqual(['db-1', 'web-1']);
    expect(names(lister.list())).toHaveLength(4);
    expect(names(lister.list('', 'app=web'))).toEqual(['web-1', 'web-2']);
    expect(names(lister.list('a', 'app in (web,db),!tier'))).toEqual(['db-1']);
    expect(names(lister.list(undefined, labelSelectorFromSet({ tier: 'front' })))).toEqual(['web-1']);
    expect(() => lister.list('', 'app in (')).toThrow();
  });
});
