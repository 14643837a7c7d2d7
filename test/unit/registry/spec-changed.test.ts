// specChanged decides whether an update bumps metadata.generation: upstream compares specs with
// apiequality.Semantic.DeepEqual, so key order and empty-versus-absent are not changes.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/api/object.js';
import { specChanged } from '../../../src/apiserver/registry/object-meta.js';

const object = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: extra.labels as Record<string, string> | undefined },
  spec,
  ...('status' in extra ? { status: extra.status } : {}),
});

describe('specChanged', () => {
  it('ignores key order, as kubectl sends keys sorted and stored objects carry defaults appended', () => {
    const stored = object({
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate' },
    });
    const replaced = object({
      strategy: { type: 'RollingUpdate' },
      selector: { matchLabels: { app: 'web' } },
      replicas: 1,
    });
    expect(specChanged(replaced, stored)).toBe(false);
  });

  it('ignores metadata and status', () => {
    expect(specChanged(object({ a: 1 }, { labels: { x: 'y' }, status: { b: 2 } }), object({ a: 1 }))).toBe(
      false,
    );
  });

  it('sees a changed value, an added field and a reordered list', () => {
    expect(specChanged(object({ replicas: 2 }), object({ replicas: 1 }))).toBe(true);
    expect(specChanged(object({ replicas: 1, paused: true }), object({ replicas: 1 }))).toBe(true);
    expect(specChanged(object({ list: [1, 2] }), object({ list: [2, 1] }))).toBe(true);
  });
});
