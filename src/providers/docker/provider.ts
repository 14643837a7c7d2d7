// The Docker provider: nodes are containers on the cluster's docker network, found again by
// their labels.
import type Dockerode from 'dockerode';
import type {
  ClusterNetwork,
  ContainerdWaitOptions,
  CopyFileOptions,
  ExecOptions,
  ExecResult,
  ImageLoadOptions,
  ImageLoadResult,
  NetworkSpec,
  NodeFile,
  NodeInfo,
  NodeProvider,
  NodeRole,
  NodeSpec,
  NodeState,
  RemovedResources,
} from '../types.js';
import { removeClusterResources, removeNodeResources } from './cleanup.js';
import { waitForContainerdInNode, waitForContainerdMarker } from './containerd-wait.js';
import {
  assertDockerAvailable,
  createDockerClient,
  dockerUnavailable,
  isConnectionError,
} from './docker-client.js';
import { DockerProviderError, engineMessage, engineStatusCode, isConflict } from './errors.js';
import { execInContainer } from './exec.js';
import { loadImagesIntoNodes } from './image-load.js';
import {
  CLUSTER_LABEL,
  clusterFilter,
  NODE_INDEX_LABEL,
  networkName,
  nodeName,
  ROLE_LABEL,
} from './names.js';
import { ensureClusterNetwork } from './network.js';
import { nodeContainerOptions } from './node-container.js';
import { detectNodeSecurity } from './security.js';
import { type TarEntry, tarStream } from './tar.js';

const DEFAULT_CONTAINERD_TIMEOUT_MS = 30_000;

export class DockerProvider implements NodeProvider {
  readonly docker: Dockerode;

  constructor(docker: Dockerode = createDockerClient()) {
    this.docker = docker;
  }

  checkAvailable(): Promise<void> {
    return assertDockerAvailable(this.docker);
  }

  ensureNetwork(spec: NetworkSpec): Promise<ClusterNetwork> {
    return this.#engine(() => ensureClusterNetwork(this.docker, spec));
  }

  createNode(spec: NodeSpec): Promise<NodeInfo> {
    return this.#engine(async () => {
      const security = await detectNodeSecurity(this.docker);
      const options = nodeContainerOptions(spec, networkName(spec.cluster), security);
      let container: Dockerode.Container;
      try {
        container = await this.docker.createContainer(options);
      } catch (error) {
        const problem = isConflict(error) ? 'a container with that name exists' : engineMessage(error);
        throw new DockerProviderError(`cannot create node ${options.name}: ${problem}`);
      }
      try {
        await container.start();
      } catch (error) {
        throw new DockerProviderError(`cannot start node ${options.name}: ${engineMessage(error)}`);
      }
      return nodeInfo(await container.inspect());
    });
  }

  waitForContainerd(node: string, options: ContainerdWaitOptions = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_CONTAINERD_TIMEOUT_MS;
    return this.#engine(() =>
      options.runDirOnHost === undefined
        ? waitForContainerdInNode(this.docker, node, timeoutMs)
        : waitForContainerdMarker(this.docker, node, options.runDirOnHost, timeoutMs),
    );
  }

  exec(node: string, command: string[], options?: ExecOptions): Promise<ExecResult> {
    return this.#engine(() => execInContainer(this.docker, node, command, options));
  }

  copyFile(
    node: string,
    path: string,
    content: string | Uint8Array,
    options: CopyFileOptions = {},
  ): Promise<void> {
    return this.#engine(async () => {
      // Through a shell rather than the archive API: that one cannot write into a running
      // container's tmpfs mounts (/run, /tmp). Written aside, then renamed: never half a file.
      const mode = (options.mode ?? 0o644).toString(8);
      const script =
        'set -e; mkdir -p "$(dirname "$1")"; cat >"$1.tkube-tmp"; chmod "$2" "$1.tkube-tmp"; mv -f "$1.tkube-tmp" "$1"';
      const result = await execInContainer(this.docker, node, ['sh', '-c', script, 'sh', path, mode], {
        input: content,
      });
      if (result.exitCode !== 0) {
        throw new DockerProviderError(`cannot write ${path} in node ${node}: ${result.stderr.trim()}`);
      }
    });
  }

  copyFiles(node: string, files: readonly NodeFile[]): Promise<void> {
    return this.#engine(async () => {
      // One archive through the engine's API: no exec round trip per file.
      const entries: TarEntry[] = [];
      const directories = new Set<string>();
      for (const file of files) {
        const parts = file.path.replace(/^\/+/, '').split('/');
        for (let i = 1; i < parts.length; i++) {
          const directory = `${parts.slice(0, i).join('/')}/`;
          if (directories.has(directory)) continue;
          directories.add(directory);
          entries.push({ type: 'directory', path: directory, mode: 0o755 });
        }
        const content = typeof file.content === 'string' ? Buffer.from(file.content) : file.content;
        entries.push({ type: 'file', path: parts.join('/'), mode: file.mode ?? 0o644, content });
      }
      try {
        await this.docker.getContainer(node).putArchive(tarStream(entries), { path: '/' });
      } catch (error) {
        throw new DockerProviderError(`cannot write files in node ${node}: ${engineMessage(error)}`);
      }
    });
  }

  inspectNode(node: string): Promise<unknown> {
    return this.#engine(() => this.docker.getContainer(node).inspect());
  }

  listNodes(cluster: string): Promise<NodeInfo[]> {
    return this.#engine(async () => {
      const containers = await this.docker.listContainers({
        all: true,
        filters: { label: [clusterFilter(cluster), ROLE_LABEL] },
      });
      return containers
        .map((summary) => nodeInfoFromSummary(summary, cluster))
        .sort((a, b) => a.index - b.index);
    });
  }

  listClusters(): Promise<string[]> {
    return this.#engine(async () => {
      const filters = { label: [CLUSTER_LABEL] };
      const [containers, volumes, networks] = await Promise.all([
        this.docker.listContainers({ all: true, filters }),
        this.docker.listVolumes({ filters }),
        this.docker.listNetworks({ filters }),
      ]);
      const names = new Set<string>();
      for (const labels of [
        ...containers.map((container) => container.Labels),
        ...(volumes.Volumes ?? []).map((volume) => volume.Labels),
        ...networks.map((network) => network.Labels),
      ]) {
        const name = labels?.[CLUSTER_LABEL];
        if (name) names.add(name);
      }
      return [...names].sort();
    });
  }

  startNode(node: string): Promise<void> {
    return this.#engine(async () => {
      try {
        await this.docker.getContainer(node).start();
      } catch (error) {
        // 304: already running.
        if (engineStatusCode(error) === 304) return;
        throw new DockerProviderError(`cannot start node ${node}: ${engineMessage(error)}`);
      }
    });
  }

  stopNode(node: string, timeoutSeconds: number): Promise<void> {
    return this.#engine(async () => {
      try {
        await this.docker.getContainer(node).stop({ t: timeoutSeconds });
      } catch (error) {
        // 304: already stopped.
        if (engineStatusCode(error) === 304) return;
        throw new DockerProviderError(`cannot stop node ${node}: ${engineMessage(error)}`);
      }
    });
  }

  removeNode(node: string): Promise<void> {
    return this.#engine(() => removeNodeResources(this.docker, node));
  }

  removeCluster(cluster: string): Promise<RemovedResources> {
    return this.#engine(() => removeClusterResources(this.docker, cluster));
  }

  loadImages(cluster: string, references: string[], options?: ImageLoadOptions): Promise<ImageLoadResult> {
    return this.#engine(async () => {
      const nodes = (await this.listNodes(cluster)).filter((node) => node.state === 'running');
      if (nodes.length === 0) throw new DockerProviderError(`cluster "${cluster}" has no running nodes`);
      return loadImagesIntoNodes(this.docker, nodes, references, options);
    });
  }

  /** Engine unreachable mid-operation: the same one-line error as a failed check. */
  async #engine<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      if (isConnectionError(error)) throw dockerUnavailable(this.docker, error);
      throw error;
    }
  }
}

function nodeInfo(info: Dockerode.ContainerInspectInfo): NodeInfo {
  const labels = info.Config.Labels ?? {};
  const cluster = labels[CLUSTER_LABEL] ?? '';
  const network = info.NetworkSettings.Networks[networkName(cluster)];
  return {
    name: info.Name.replace(/^\//, ''),
    cluster,
    role: role(labels[ROLE_LABEL]),
    index: Number(labels[NODE_INDEX_LABEL] ?? -1),
    ip: network?.IPAMConfig?.IPv4Address || network?.IPAddress || '',
    state: info.State.Status as NodeState,
    containerId: info.Id,
    image: info.Config.Image,
  };
}

function nodeInfoFromSummary(summary: Dockerode.ContainerInfo, cluster: string): NodeInfo {
  const labels = summary.Labels ?? {};
  const index = Number(labels[NODE_INDEX_LABEL] ?? -1);
  const network = summary.NetworkSettings?.Networks?.[networkName(cluster)] as
    | (Dockerode.NetworkInfo & { IPAMConfig?: { IPv4Address?: string } | null })
    | undefined;
  return {
    name: summary.Names[0]?.replace(/^\//, '') ?? nodeName(cluster, index),
    cluster,
    role: role(labels[ROLE_LABEL]),
    index,
    ip: network?.IPAMConfig?.IPv4Address || network?.IPAddress || '',
    state: summary.State as NodeState,
    containerId: summary.Id,
    image: summary.Image,
  };
}

function role(value: string | undefined): NodeRole {
  return value === 'control-plane' ? 'control-plane' : 'worker';
}
