// Where nodes live. Every provider (Docker today; a simulated one for tests later) offers the
// same operations, so cluster lifecycle code never names the container engine (kind's spirit).

export type NodeRole = 'control-plane' | 'worker';

/** A port of a node published on the host (kind's `extraPortMappings`). */
export interface PortMapping {
  containerPort: number;
  /** Default: a random free port chosen by the engine. */
  hostPort?: number;
  /** Default: 0.0.0.0. */
  listenAddress?: string;
  /** Default: TCP. */
  protocol?: 'TCP' | 'UDP' | 'SCTP';
}

/** A host path mounted into a node (kind's `extraMounts`). */
export interface NodeMount {
  hostPath: string;
  containerPath: string;
  readOnly?: boolean;
  /** Default: None (private). */
  propagation?: 'None' | 'HostToContainer' | 'Bidirectional';
}

/** The network every node of one cluster joins; fixed subnet so node IPs survive restarts. */
export interface NetworkSpec {
  cluster: string;
  /** CIDR, e.g. 172.30.0.0/24. */
  subnet: string;
  /** The host's address on the network; nodes reach the control plane there. */
  gateway: string;
}

export interface ClusterNetwork {
  name: string;
  id: string;
  subnet: string;
  gateway: string;
}

export interface NodeSpec {
  cluster: string;
  /** 0-based; names the node `<cluster>-node-<index>` unless `name` is given. */
  index: number;
  /** The node's (container's, host's) name instead of `<cluster>-node-<index>`. */
  name?: string;
  role: NodeRole;
  /** The node image, e.g. tkube.local/node:<hash>. */
  image: string;
  /** Fixed IPv4 address inside the cluster network's subnet. */
  ip: string;
  env?: Record<string, string>;
  /** More labels on the node container (the provider's own labels win). */
  labels?: Record<string, string>;
  portMappings?: PortMapping[];
  mounts?: NodeMount[];
}

export type NodeState = 'created' | 'running' | 'paused' | 'restarting' | 'removing' | 'exited' | 'dead';

export interface NodeInfo {
  /** The node (and container, and host) name. */
  name: string;
  cluster: string;
  role: NodeRole;
  index: number;
  /** Empty when the node is not attached to its cluster network. */
  ip: string;
  state: NodeState;
  containerId: string;
  image: string;
}

export interface ContainerdWaitOptions {
  /** Default 30 s. */
  timeoutMs?: number;
  /**
   * The host directory mounted at the node's /run/tkube (empty when the node was created): the
   * ready marker is watched there rather than through a command run in the node.
   */
  runDirOnHost?: string;
}

export interface ExecOptions {
  /** Written to the command's stdin, which is then closed. */
  input?: string | Uint8Array | NodeJS.ReadableStream;
  env?: Record<string, string>;
  workingDir?: string;
  signal?: AbortSignal;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface NodeFile {
  /** Absolute path in the node. */
  path: string;
  content: string | Uint8Array;
  /** Default 0o644. */
  mode?: number;
}

export interface CopyFileOptions {
  /** Default 0o644. */
  mode?: number;
}

/** What removing a cluster's resources found and removed (names). */
export interface RemovedResources {
  containers: string[];
  volumes: string[];
  networks: string[];
}

export interface ImageLoadOptions {
  /** Called as each node finishes: imported or skipped because it already held the image. */
  onNode?: (event: { node: string; imported: string[]; skipped: string[] }) => void;
  signal?: AbortSignal;
}

export interface ImageLoadResult {
  /** The references as given, with their image ids on the host. */
  images: { reference: string; id: string }[];
  /** Per node: which references were imported and which it already held. */
  nodes: { node: string; imported: string[]; skipped: string[] }[];
}

export interface NodeProvider {
  /** Fails with a clear error when the engine cannot be reached. */
  checkAvailable(): Promise<void>;
  /** Creates the cluster network, or returns it when it exists with the same subnet. */
  ensureNetwork(spec: NetworkSpec): Promise<ClusterNetwork>;
  /** Creates and starts a node; its name is `<cluster>-node-<index>`. */
  createNode(spec: NodeSpec): Promise<NodeInfo>;
  /** Resolves once containerd answers in the node and the pause image is in place. */
  waitForContainerd(node: string, options?: ContainerdWaitOptions): Promise<void>;
  exec(node: string, command: string[], options?: ExecOptions): Promise<ExecResult>;
  /** Writes `content` to `path` in the node (parent directories created). */
  copyFile(
    node: string,
    path: string,
    content: string | Uint8Array,
    options?: CopyFileOptions,
  ): Promise<void>;
  /**
   * Writes several files in one step, in order (parent directories created). Not for tmpfs
   * mounts (/run, /tmp): use copyFile there.
   */
  copyFiles(node: string, files: readonly NodeFile[]): Promise<void>;
  /** The engine's full description of a node (`docker inspect`), for diagnostics. */
  inspectNode(node: string): Promise<unknown>;
  /** The cluster's nodes, sorted by index; found by label, whatever their state. */
  listNodes(cluster: string): Promise<NodeInfo[]>;
  /** The names of clusters that have any resource with this provider. */
  listClusters(): Promise<string[]>;
  /** Starts a stopped node container again (its address, volume and files as they were). */
  startNode(node: string): Promise<void>;
  /** Stops a node container: SIGTERM to its entrypoint, SIGKILL after `timeoutSeconds`. */
  stopNode(node: string, timeoutSeconds: number): Promise<void>;
  /** Removes one node's container and its volume; idempotent. */
  removeNode(node: string): Promise<void>;
  /** Removes every container, volume and network of the cluster; idempotent. */
  removeCluster(cluster: string): Promise<RemovedResources>;
  /** Copies images from the host's engine into every node's containerd (namespace k8s.io). */
  loadImages(cluster: string, references: string[], options?: ImageLoadOptions): Promise<ImageLoadResult>;
}
