import { describe, expect, it } from 'vitest';
import { parseCtrImageList } from '../../../src/providers/docker/image-load.js';

describe('ctr images ls', () => {
  it('maps each name, the CRI id name included, to its manifest digest', () => {
    const output = [
      'REF                          TYPE                                                 DIGEST                  SIZE      PLATFORMS   LABELS',
      'docker.io/library/app:1      application/vnd.docker.distribution.manifest.v2+json sha256:aaa             1.2 MiB   linux/amd64 io.cri-containerd.image=managed',
      'sha256:1111                  application/vnd.docker.distribution.manifest.v2+json sha256:aaa             1.2 MiB   linux/amd64 io.cri-containerd.image=managed',
      'tkube.local/pause:1          application/vnd.docker.distribution.manifest.v2+json sha256:bbb             669.8 KiB linux/amd64 -',
      '',
    ].join('\n');
    expect([...parseCtrImageList(output)]).toEqual([
      ['docker.io/library/app:1', 'sha256:aaa'],
      ['sha256:1111', 'sha256:aaa'],
      ['tkube.local/pause:1', 'sha256:bbb'],
    ]);
  });
});
