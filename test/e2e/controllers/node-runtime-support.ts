// What the controllers e2e suite needs from inside the node containers: a second tag of the
// busybox image loaded into the nodes, the containers containerd still runs, and a command run
// in a pod's container (there is no `kubectl exec` yet; `ctr tasks exec` is the same thing).
import { randomBytes } from 'node:crypto';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { execInContainer } from '../../../src/providers/docker/exec.js';
import { docker, provider } from '../docker/support.js';

/** `docker tag source target`, then the new tag into every node of the cluster. */
export async function loadRetaggedImage(cluster: string, source: string, target: string): Promise<void> {
  const [repo, tag] = target.split(':') as [string, string];
  await docker.getImage(source).tag({ repo, tag });
  await provider.loadImages(cluster, [target]);
}

/** containerd's id of a container of the pod (`containerd://<id>` in its status). */
export function containerId(pod: Pod, container: string): string {
  const id = pod.status?.containerStatuses?.find((s) => s.name === container)?.containerID;
  if (!id) throw new Error(`pod ${pod.metadata?.name} has no container ${container} yet`);
  return id.replace(/^containerd:\/\//, '');
}

/** Ids of the tasks (containers and sandboxes) running on the node. */
export async function runningTaskIds(node: string): Promise<Set<string>> {
  const result = await execInContainer(docker, node, ['ctr', '--namespace', 'k8s.io', 'tasks', 'ls']);
  if (result.exitCode !== 0) throw new Error(`ctr tasks ls on ${node}: ${result.stderr}`);
  const running = result.stdout
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter(([id, , status]) => id && status === 'RUNNING')
    .map(([id]) => id as string);
  return new Set(running);
}

/** Runs `command` in the pod's container through containerd on the pod's node. */
export async function execInPod(pod: Pod, container: string, command: string[]): Promise<string> {
  const execId = `e2e-${randomBytes(4).toString('hex')}`;
  const result = await execInContainer(docker, pod.spec!.nodeName!, [
    'ctr',
    '--namespace',
    'k8s.io',
    'tasks',
    'exec',
    '--exec-id',
    execId,
    containerId(pod, container),
    ...command,
  ]);
  if (result.exitCode !== 0) {
    throw new Error(`exec ${command.join(' ')} in ${pod.metadata?.name}: ${result.stderr || result.stdout}`);
  }
  return result.stdout;
}
