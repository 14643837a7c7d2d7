// The node's facts as the agent reports them in nodeInfo: the runtime's name and version from
// CRI's Version call, as the kubelet writes them.
import { describe, expect, it } from 'vitest';
import type { VersionResponse } from '../../../src/agent/kubelet/cri/types.js';
import { containerRuntimeVersion } from '../../../src/agent/node/system-info.js';

const version = (runtimeVersion: string): (() => Promise<VersionResponse>) => {
  return async () => ({
    version: '0.1.0',
    runtimeName: 'containerd',
    runtimeVersion,
    runtimeApiVersion: 'v1',
  });
};

describe('containerRuntimeVersion', () => {
  it("writes the runtime as `<name>://<version>` from CRI's Version, unchanged", async () => {
    expect(await containerRuntimeVersion(version('1.6.20~ds1'))).toBe('containerd://1.6.20~ds1');
    expect(await containerRuntimeVersion(version('v1.7.13'))).toBe('containerd://v1.7.13');
  });

  it('says unknown when the runtime does not answer', async () => {
    const refused = async (): Promise<VersionResponse> => {
      throw new Error('rpc error: code = Unavailable desc = connection refused');
    };
    expect(await containerRuntimeVersion(refused)).toBe('containerd://unknown');
  });
});
