// The cluster's docker network: a bridge with a fixed subnet so node IPs survive restarts.
import type Dockerode from 'dockerode';
import type { ClusterNetwork, NetworkSpec } from '../types.js';
import { DockerProviderError, engineMessage, isConflict, isNotFound } from './errors.js';
import { CLUSTER_LABEL, networkName } from './names.js';

export async function ensureClusterNetwork(docker: Dockerode, spec: NetworkSpec): Promise<ClusterNetwork> {
  const name = networkName(spec.cluster);
  const existing = await inspectNetwork(docker, name);
  if (existing) return matching(existing, spec);
  try {
    await docker.createNetwork({
      Name: name,
      Driver: 'bridge',
      CheckDuplicate: true,
      Labels: { [CLUSTER_LABEL]: spec.cluster },
      IPAM: { Driver: 'default', Config: [{ Subnet: spec.subnet, Gateway: spec.gateway }] },
      Options: { 'com.docker.network.bridge.enable_ip_masquerade': 'true' },
    });
  } catch (error) {
    // Another process created it first: use theirs if it matches.
    const raced = isConflict(error) ? await inspectNetwork(docker, name) : undefined;
    if (raced) return matching(raced, spec);
    throw new DockerProviderError(
      `cannot create docker network ${name} (${spec.subnet}): ${engineMessage(error)}`,
    );
  }
  const created = await inspectNetwork(docker, name);
  if (!created) throw new DockerProviderError(`docker network ${name} vanished right after it was created`);
  return matching(created, spec);
}

async function inspectNetwork(
  docker: Dockerode,
  name: string,
): Promise<Dockerode.NetworkInspectInfo | undefined> {
  try {
    return (await docker.getNetwork(name).inspect()) as Dockerode.NetworkInspectInfo;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

function matching(info: Dockerode.NetworkInspectInfo, spec: NetworkSpec): ClusterNetwork {
  const config = info.IPAM?.Config?.[0];
  const subnet = config?.Subnet ?? '';
  const gateway = config?.Gateway ?? '';
  if (info.Labels?.[CLUSTER_LABEL] !== spec.cluster) {
    throw new DockerProviderError(
      `docker network ${info.Name} exists but was not created by tkube for cluster "${spec.cluster}"`,
    );
  }
  if (subnet !== spec.subnet || gateway !== spec.gateway) {
    throw new DockerProviderError(
      `docker network ${info.Name} exists with subnet ${subnet} and gateway ${gateway}, not ${spec.subnet} and ${spec.gateway}`,
    );
  }
  return { name: info.Name, id: info.Id, subnet, gateway };
}
