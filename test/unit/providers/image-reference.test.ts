import { describe, expect, it } from 'vitest';
import { normalizeImageReference, withDefaultTag } from '../../../src/providers/docker/image-reference.js';

describe('image references as containerd names them', () => {
  it.each([
    ['busybox', 'docker.io/library/busybox:latest'],
    ['busybox:1.36', 'docker.io/library/busybox:1.36'],
    ['me/app:v1', 'docker.io/me/app:v1'],
    ['tkube.local/pause:1', 'tkube.local/pause:1'],
    ['localhost/app', 'localhost/app:latest'],
    ['registry:5000/team/app', 'registry:5000/team/app:latest'],
    ['quay.io/org/app@sha256:abcd', 'quay.io/org/app@sha256:abcd'],
    ['docker.io/library/nginx:1', 'docker.io/library/nginx:1'],
  ])('%s → %s', (reference, expected) => {
    expect(normalizeImageReference(reference)).toBe(expected);
  });

  it('adds :latest only where there is no tag or digest', () => {
    expect(withDefaultTag('busybox')).toBe('busybox:latest');
    expect(withDefaultTag('registry:5000/app')).toBe('registry:5000/app:latest');
    expect(withDefaultTag('app:1')).toBe('app:1');
    expect(withDefaultTag('app@sha256:ab')).toBe('app@sha256:ab');
  });
});
