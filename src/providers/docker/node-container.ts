// The container a node runs in: the flag set of docs/node-image.md as engine API options.
import type Dockerode from 'dockerode';
import { LOCAL_PATH_ROOT } from '../../api/storage/local-path.js';
import type { NodeMount, NodeSpec, PortMapping } from '../types.js';
import {
  CLUSTER_LABEL,
  CONTAINERD_DIR,
  containerdVolumeName,
  localPathVolumeName,
  NODE_INDEX_LABEL,
  nodeName,
  ROLE_LABEL,
} from './names.js';
import type { NodeSecurity } from './security.js';

/** HostConfig fields @types/dockerode lacks. */
type HostConfig = Dockerode.HostConfig & { CgroupnsMode?: 'private' | 'host' };

/** What every node container needs to run containers itself, whatever its network. */
export function nodeHostConfig(security: NodeSecurity): HostConfig {
  const privilege: HostConfig = security.privileged
    ? { Privileged: true }
    : { CapAdd: ['ALL'], CapDrop: security.capDrop, DeviceCgroupRules: ['a *:* rwm'] };
  return {
    ...privilege,
    SecurityOpt: ['seccomp=unconfined', 'apparmor=unconfined', 'label=disable'],
    // The CLI's `--security-opt systempaths=unconfined`: /proc/sys writable for sysctls.
    MaskedPaths: [],
    ReadonlyPaths: [],
    // Pod cgroups nest under the node's own.
    CgroupnsMode: 'private',
    // Runtime state and CNI address leases start empty after a restart: no stale pod IPs.
    Tmpfs: { '/run': 'rw,nosuid,nodev,exec,mode=755', '/tmp': 'rw,nosuid,nodev,exec,mode=1777' },
    // docker-init reaps the containerd shims re-parented to PID 1.
    Init: true,
  };
}

export function nodeContainerOptions(
  spec: NodeSpec,
  network: string,
  security: NodeSecurity,
): Dockerode.ContainerCreateOptions {
  const name = spec.name ?? nodeName(spec.cluster, spec.index);
  const labels = {
    ...spec.labels,
    [CLUSTER_LABEL]: spec.cluster,
    [ROLE_LABEL]: spec.role,
    [NODE_INDEX_LABEL]: String(spec.index),
  };
  const ports = portBindings(spec.portMappings ?? []);
  return {
    name,
    Hostname: name,
    Image: spec.image,
    Env: Object.entries(spec.env ?? {}).map(([key, value]) => `${key}=${value}`),
    Labels: labels,
    ExposedPorts: ports.exposed,
    HostConfig: {
      ...nodeHostConfig(security),
      // Back after a dockerd restart or a host reboot, as k3d's nodes; `tkube stop` keeps them down.
      RestartPolicy: { Name: 'unless-stopped' },
      NetworkMode: network,
      PortBindings: ports.bindings,
      Mounts: [
        // overlayfs cannot stack on the node's overlay rootfs; a volume also keeps images
        // across restarts.
        clusterVolume(containerdVolumeName(name), CONTAINERD_DIR, spec.cluster),
        // Claims' data lives on a volume of its own, removed only by `tkube down`.
        clusterVolume(localPathVolumeName(name), LOCAL_PATH_ROOT, spec.cluster),
        ...(spec.mounts ?? []).map(bindMount),
      ],
    },
    NetworkingConfig: {
      EndpointsConfig: {
        [network]: { IPAMConfig: { IPv4Address: spec.ip }, Aliases: [name] },
      },
    },
  };
}

/** A docker volume labelled with its cluster, so cleanup finds and removes it. */
function clusterVolume(source: string, target: string, cluster: string): Dockerode.MountSettings {
  return {
    Type: 'volume',
    Source: source,
    Target: target,
    VolumeOptions: {
      NoCopy: false,
      Labels: { [CLUSTER_LABEL]: cluster },
      DriverConfig: { Name: 'local', Options: {} },
    },
  };
}

function portBindings(mappings: PortMapping[]): {
  exposed: Record<string, Record<string, never>>;
  bindings: Record<string, { HostIp: string; HostPort: string }[]>;
} {
  const exposed: Record<string, Record<string, never>> = {};
  const bindings: Record<string, { HostIp: string; HostPort: string }[]> = {};
  for (const mapping of mappings) {
    const key = `${mapping.containerPort}/${(mapping.protocol ?? 'TCP').toLowerCase()}`;
    exposed[key] = {};
    const binding = {
      HostIp: mapping.listenAddress ?? '',
      HostPort: mapping.hostPort ? String(mapping.hostPort) : '',
    };
    bindings[key] = [...(bindings[key] ?? []), binding];
  }
  return { exposed, bindings };
}

const PROPAGATION = { None: 'rprivate', HostToContainer: 'rslave', Bidirectional: 'rshared' } as const;

function bindMount(mount: NodeMount): Dockerode.MountSettings {
  return {
    Type: 'bind',
    Source: mount.hostPath,
    Target: mount.containerPath,
    ReadOnly: mount.readOnly ?? false,
    BindOptions: { Propagation: PROPAGATION[mount.propagation ?? 'None'] },
  };
}
