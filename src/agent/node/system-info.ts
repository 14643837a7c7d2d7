// nodeInfo's facts about the machine, read where the kubelet reads them.
import { readFile } from 'node:fs/promises';
import { release } from 'node:os';
import type { RunCommand } from '../network/host-commands.js';
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

/** `containerd://1.6.20`: the runtime name and version, as CRI's Version call reports them. */
async function containerRuntimeVersion(run: RunCommand): Promise<string> {
  const output = await run('containerd', ['--version']).catch(() => '');
  const match = /containerd\s+\S+\s+v?(\d+\.\d+\.\d+\S*)/.exec(output);
  return match ? `containerd://${match[1]}` : 'containerd://unknown';
}

export async function readNodeFacts(run: RunCommand): Promise<NodeFacts> {
  const machineID = await firstLine('/etc/machine-id');
  const [resources, image, runtime, bootID, productUUID] = await Promise.all([
    readNodeResources(),
    osImage(),
    containerRuntimeVersion(run),
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
