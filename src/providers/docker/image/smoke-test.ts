// Every build ends here: the image runs as a node would (same flags), containerd answers,
// the pause image is in place and the tools a node needs run.
import { randomBytes } from 'node:crypto';
import type Dockerode from 'dockerode';
import type { ExecResult } from '../../types.js';
import { engineMessage } from '../errors.js';
import { execInContainer } from '../exec.js';
import { containerLogTail } from '../logs.js';
import { nodeHostConfig } from '../node-container.js';
import type { NodeSecurity } from '../security.js';
import { CONTAINERD_READY_MARKER } from './layout.js';
import { CNI_PLUGINS } from './offline-builder.js';
import { PAUSE_IMAGE } from './pause-image.js';

const READY_TIMEOUT_SECONDS = 30;

const CHECKS = `
set -e
i=0
until [ -e ${CONTAINERD_READY_MARKER} ]; do
  i=$((i + 1))
  if [ "$i" -gt ${READY_TIMEOUT_SECONDS * 20} ]; then echo "containerd not ready after ${READY_TIMEOUT_SECONDS} s" >&2; exit 1; fi
  sleep 0.05
done
ctr version >/dev/null
ctr --namespace k8s.io images ls -q | grep -qx '${PAUSE_IMAGE}' || { echo '${PAUSE_IMAGE} is not in containerd' >&2; exit 1; }
runc --version | head -n 1
echo "node $(node --version)"
for plugin in ${CNI_PLUGINS.join(' ')}; do
  [ -x /usr/lib/cni/$plugin ] || { echo "CNI plugin $plugin is missing" >&2; exit 1; }
done
iptables-nft -t nat -S >/dev/null
iptables-legacy -t nat -S >/dev/null
iptables -m comment --help >/dev/null
conntrack --version
ip -V
`;

/** Runs the checks in a throwaway node container; throws with the container's logs on failure. */
export async function smokeTestNodeImage(
  docker: Dockerode,
  image: string,
  security: NodeSecurity,
): Promise<string> {
  const container = await docker.createContainer({
    name: `tkube-smoke-${randomBytes(4).toString('hex')}`,
    Image: image,
    Labels: { 'dev.tkube.smoke-test': 'true' },
    // An anonymous volume, removed with the container: overlayfs needs it under containerd.
    Volumes: { '/var/lib/containerd': {} },
    HostConfig: { ...nodeHostConfig(security), NetworkMode: 'none' },
  });
  try {
    await container.start();
    let result: ExecResult | undefined;
    let failure = '';
    try {
      result = await execInContainer(docker, container.id, ['sh', '-c', CHECKS]);
      failure = lastLine(result.stderr) || `exit code ${result.exitCode}`;
    } catch (error) {
      // The container stopped before or while the checks ran.
      failure = engineMessage(error);
    }
    if (result?.exitCode === 0) return result.stdout;
    const state = await container.inspect().then(
      (info) => info.State,
      () => undefined,
    );
    if (state && !state.Running) failure = `the node container exited with code ${state.ExitCode}`;
    const logs = await containerLogs(docker, container.id);
    throw new Error(
      `the node image ${image} failed its smoke test: ${failure}\n${result?.stdout ?? ''}${result?.stderr ?? ''}${logs}`,
    );
  } finally {
    await container.remove({ force: true, v: true }).catch(() => undefined);
  }
}

async function containerLogs(docker: Dockerode, id: string): Promise<string> {
  const containerd = await execInContainer(docker, id, ['tail', '-n', '30', '/var/log/containerd.log']).catch(
    () => undefined,
  );
  const logs = await containerLogTail(docker, id).catch(() => '');
  return `--- container log ---\n${logs}--- containerd log ---\n${containerd?.stdout ?? ''}`;
}

function lastLine(text: string): string {
  return text.trim().split('\n').pop() ?? '';
}
