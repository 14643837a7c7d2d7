// ControllerRevision history: names `<parent>-<hash>`, the hash changing with the data and the
// collision count, ordering, equal-revision lookup and truncation sparing revisions in use.
import { describe, expect, it } from 'vitest';
import type { ControllerRevision } from '../../../src/api/types/apps-v1.generated.js';
import { ApiError } from '../../../src/client/rest/api-error.js';
import type { ResourceClient } from '../../../src/client/types.js';
import {
  canonicalJson,
  controllerRevisionName,
  createControllerRevision,
  findEqualRevisions,
  hashControllerRevision,
  newControllerRevision,
  nextRevisionNumber,
  sortRevisions,
  templatePatch,
} from '../../../src/controllers/history/controller-history.js';

const parent = { metadata: { name: 'web', namespace: 'ns', uid: 'u1' } };
const kind = { apiVersion: 'apps/v1', kind: 'StatefulSet' };
const data = (image: string) => templatePatch({ spec: { containers: [{ name: 'c', image }] } });

describe('controller history', () => {
  it('hashes the data and the collision count into safe characters', () => {
    const a = hashControllerRevision(data('v1'), 0);
    expect(a).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(hashControllerRevision(data('v1'), 0)).toBe(a);
    expect(hashControllerRevision(data('v2'), 0)).not.toBe(a);
    expect(hashControllerRevision(data('v1'), 1)).not.toBe(a);
    // Key order does not matter: Go prints maps sorted.
    expect(canonicalJson({ b: 1, a: { d: 2, c: 3 } })).toBe('{"a":{"c":3,"d":2},"b":1}');
  });

  it('names, labels and owns a new revision', () => {
    const revision = newControllerRevision(parent, kind, { app: 'web' }, data('v1'), 3, 0);
    const hash = hashControllerRevision(data('v1'), 0);
    expect(revision.metadata).toMatchObject({
      name: `web-${hash}`,
      namespace: 'ns',
      labels: { app: 'web', 'controller-revision-hash': hash },
      ownerReferences: [{ kind: 'StatefulSet', name: 'web', uid: 'u1', controller: true }],
    });
    expect(revision.revision).toBe(3);
    expect(revision.data).toEqual({
      spec: {
        template: {
          metadata: { creationTimestamp: null },
          spec: { containers: [{ name: 'c', image: 'v1', resources: {} }] },
          $patch: 'replace',
        },
      },
    });
    expect(controllerRevisionName('x'.repeat(300), 'h')).toHaveLength(225);
  });

  it("records the template as Go's json.Marshal writes it, whatever empty fields the client sent", () => {
    const sent = templatePatch({
      metadata: { labels: { app: 'web' } },
      spec: { initContainers: [{ name: 'i' }], containers: [{ name: 'c', image: 'v1' }] },
    });
    const goShaped = templatePatch({
      metadata: { labels: { app: 'web' }, creationTimestamp: null },
      spec: {
        initContainers: [{ name: 'i', resources: {} }],
        containers: [{ name: 'c', image: 'v1', resources: {} }],
      },
    });
    expect(sent).toEqual(goShaped);
    expect(hashControllerRevision(sent, 0)).toBe(hashControllerRevision(goShaped, 0));
    // Written byte for byte as Go marshals the map: keys sorted, `$patch` first.
    expect(JSON.stringify(sent)).toBe(
      '{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"web"}},"spec":{"containers":[{"image":"v1","name":"c","resources":{}}],"initContainers":[{"name":"i","resources":{}}]}}}}',
    );
  });

  it('sorts by revision, finds equal data and numbers the next revision', () => {
    const r = (n: number, image: string): ControllerRevision => ({
      metadata: { name: `r${n}` },
      revision: n,
      data: data(image),
    });
    const revisions = [r(3, 'v1'), r(1, 'v0'), r(2, 'v2')];
    expect(sortRevisions(revisions).map((x) => x.revision)).toEqual([1, 2, 3]);
    expect(nextRevisionNumber(revisions)).toBe(4);
    expect(nextRevisionNumber([])).toBe(1);
    const candidate = newControllerRevision(parent, kind, {}, data('v2'), 4, 0);
    expect(findEqualRevisions(revisions, candidate).map((x) => x.metadata!.name)).toEqual(['r2']);
  });

  it('bumps the collision count while the name is taken by other data, and reuses equal data', async () => {
    const stored = new Map<string, ControllerRevision>();
    const taken = newControllerRevision(parent, kind, {}, data('v1'), 1, undefined);
    stored.set(taken.metadata!.name!, { ...taken, data: data('someone else') });
    const client = {
      create: async (revision: ControllerRevision) => {
        const name = revision.metadata!.name!;
        if (stored.has(name)) throw new ApiError({ reason: 'AlreadyExists', code: 409, message: 'exists' });
        stored.set(name, revision);
        return revision;
      },
      get: async (_namespace: string, name: string) => stored.get(name)!,
    } as unknown as ResourceClient<ControllerRevision>;
    const created = await createControllerRevision(client, parent, kind, taken, undefined);
    expect(created.collisionCount).toBe(1);
    expect(created.revision.metadata!.name).toBe(`web-${hashControllerRevision(data('v1'), 1)}`);
    const again = await createControllerRevision(client, parent, kind, taken, 1);
    expect(again.collisionCount).toBe(1);
    expect(again.revision.metadata!.name).toBe(created.revision.metadata!.name);
  });
});
