// nodeInfo's facts about the machine, read where the kubelet reads them.
import { readFile } from 'node:fs/promises';
import { release } from 'node:os';
import type { VersionResponse } from '../kubelet/cri/types.js';
import { readNodeResources } from './capacity.js';
import type { NodeFacts } from './node-object.js';
import { systemInfo } from './node-object.js';

async function firstLine(path: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim().split('\n')[0] ?? '';
  } catch {
    return '';
  }
}

/** PRETTY_NAME of /etc/os-release, as `kubectl get nodes -o wide` shows it. */
async function osImage(): Promise<string> {
  const text = await readFile('/etc/os-release', 'utf8').catch(() => '');
  const match = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(text);
  return match?.[1] ?? 'Linux';
}

/**
 * `containerd://1.6.20`: the runtime's name and version from CRI's Version call, as the kubelet
 * writes them (and no process started for it on every status report).
 */
export async function containerRuntimeVersion(version: () => Promise<VersionResponse>): Promise<string> {
  try {
    const { runtimeName, runtimeVersion } = await version();
    return `${runtimeName || 'containerd'}://${runtimeVersion || 'unknown'}`;
  } catch {
    return 'containerd://unknown';
  }
}

/** The node's facts; `version` is the runtime's CRI Version call. */
export async function readNodeFacts(version: () => Promise<VersionResponse>): Promise<NodeFacts> {
  const machineID = await firstLine('/etc/machine-id');
  const [resources, image, runtime, bootID, productUUID] = await Promise.all([
    readNodeResources(),
    osImage(),
    containerRuntimeVersion(version),
    firstLine('/proc/sys/kernel/random/boot_id'),
    firstLine('/sys/class/dmi/id/product_uuid'),
  ]);
  return {
    resources,
    systemInfo: systemInfo({
      machineID,
      systemUUID: productUUID || machineID,
      bootID,
      kernelVersion: release(),
      osImage: image,
      containerRuntimeVersion: runtime,
    }),
  };
}
