// CRI runtime.v1 messages as the gRPC layer hands them over: camelCase field names, enums as
// their names, int64 as numbers (nanosecond timestamps lose well under a microsecond). Responses
// carry every field (absent scalars are their zero value, absent messages null); requests may
// leave any field out.

export type Protocol = 'TCP' | 'UDP' | 'SCTP';
export type MountPropagation =
  | 'PROPAGATION_PRIVATE'
  | 'PROPAGATION_HOST_TO_CONTAINER'
  | 'PROPAGATION_BIDIRECTIONAL';
export type NamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';
export type PodSandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
export type ContainerState =
  | 'CONTAINER_CREATED'
  | 'CONTAINER_RUNNING'
  | 'CONTAINER_EXITED'
  | 'CONTAINER_UNKNOWN';
export type ProfileType = 'RuntimeDefault' | 'Unconfined' | 'Localhost';

export interface VersionResponse {
  version: string;
  runtimeName: string;
  runtimeVersion: string;
  runtimeApiVersion: string;
}

export interface DnsConfig {
  servers?: string[];
  searches?: string[];
  options?: string[];
}

export interface PortMapping {
  protocol?: Protocol;
  containerPort?: number;
  hostPort?: number;
  hostIp?: string;
}

export interface Mount {
  containerPath: string;
  hostPath: string;
  readonly?: boolean;
  selinuxRelabel?: boolean;
  propagation?: MountPropagation;
}

export interface NamespaceOption {
  network?: NamespaceMode;
  pid?: NamespaceMode;
  ipc?: NamespaceMode;
  targetId?: string;
}

export interface Int64Value {
  value: number;
}

export interface SelinuxOption {
  user?: string;
  role?: string;
  type?: string;
  level?: string;
}

export interface SecurityProfile {
  profileType?: ProfileType;
  localhostRef?: string;
}

export interface LinuxSandboxSecurityContext {
  namespaceOptions?: NamespaceOption;
  selinuxOptions?: SelinuxOption;
  runAsUser?: Int64Value;
  runAsGroup?: Int64Value;
  readonlyRootfs?: boolean;
  supplementalGroups?: number[];
  privileged?: boolean;
  seccomp?: SecurityProfile;
  apparmor?: SecurityProfile;
}

export interface LinuxPodSandboxConfig {
  cgroupParent?: string;
  securityContext?: LinuxSandboxSecurityContext;
  sysctls?: Record<string, string>;
}

export interface PodSandboxMetadata {
  name: string;
  uid: string;
  namespace: string;
  attempt: number;
}

export interface PodSandboxConfig {
  metadata: PodSandboxMetadata;
  hostname?: string;
  logDirectory?: string;
  dnsConfig?: DnsConfig;
  portMappings?: PortMapping[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  linux?: LinuxPodSandboxConfig;
}

export interface PodSandboxStatus {
  id: string;
  metadata: PodSandboxMetadata | null;
  state: PodSandboxState;
  createdAt: number;
  network: { ip: string; additionalIps: { ip: string }[] } | null;
  linux: { namespaces: { options: Required<NamespaceOption> | null } | null } | null;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  runtimeHandler: string;
}

export interface PodSandboxFilter {
  id?: string;
  state?: { state: PodSandboxState };
  labelSelector?: Record<string, string>;
}

export interface PodSandbox {
  id: string;
  metadata: PodSandboxMetadata | null;
  state: PodSandboxState;
  createdAt: number;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  runtimeHandler: string;
}

export interface ImageSpec {
  image: string;
  annotations?: Record<string, string>;
  userSpecifiedImage?: string;
  runtimeHandler?: string;
}

export interface KeyValue {
  key: string;
  value: string;
}

export interface LinuxContainerResources {
  cpuPeriod?: number;
  cpuQuota?: number;
  cpuShares?: number;
  memoryLimitInBytes?: number;
  oomScoreAdj?: number;
  cpusetCpus?: string;
  cpusetMems?: string;
  unified?: Record<string, string>;
  memorySwapLimitInBytes?: number;
}

export interface Capability {
  addCapabilities?: string[];
  dropCapabilities?: string[];
  addAmbientCapabilities?: string[];
}

export interface LinuxContainerSecurityContext {
  capabilities?: Capability;
  privileged?: boolean;
  namespaceOptions?: NamespaceOption;
  selinuxOptions?: SelinuxOption;
  runAsUser?: Int64Value;
  runAsGroup?: Int64Value;
  runAsUsername?: string;
  readonlyRootfs?: boolean;
  supplementalGroups?: number[];
  noNewPrivs?: boolean;
  maskedPaths?: string[];
  readonlyPaths?: string[];
  seccomp?: SecurityProfile;
  apparmor?: SecurityProfile;
}

export interface ContainerConfig {
  metadata: { name: string; attempt: number };
  image: ImageSpec;
  command?: string[];
  args?: string[];
  workingDir?: string;
  envs?: KeyValue[];
  mounts?: Mount[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  logPath?: string;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
  linux?: { resources?: LinuxContainerResources; securityContext?: LinuxContainerSecurityContext };
}

export interface ContainerFilter {
  id?: string;
  state?: { state: ContainerState };
  podSandboxId?: string;
  labelSelector?: Record<string, string>;
}

export interface Container {
  id: string;
  podSandboxId: string;
  metadata: { name: string; attempt: number } | null;
  image: ImageSpec | null;
  imageRef: string;
  state: ContainerState;
  createdAt: number;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  imageId: string;
}

export interface ContainerStatus {
  id: string;
  metadata: { name: string; attempt: number } | null;
  state: ContainerState;
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  image: ImageSpec | null;
  imageRef: string;
  reason: string;
  message: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  mounts: Required<Mount>[];
  logPath: string;
  imageId: string;
}

export interface ExecSyncResponse {
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number;
}

export interface Image {
  id: string;
  repoTags: string[];
  repoDigests: string[];
  size: number;
  uid: Int64Value | null;
  username: string;
  pinned: boolean;
}

export interface RuntimeCondition {
  type: string;
  status: boolean;
  reason: string;
  message: string;
}

/** CRI UInt64Value: null when the runtime has no figure. */
export interface UInt64Value {
  value: number;
}

/** CRI ContainerStats (ListContainerStats), trimmed to CPU and memory. */
export interface ContainerStats {
  attributes: {
    id: string;
    metadata: { name: string; attempt: number } | null;
    labels: Record<string, string>;
    annotations: Record<string, string>;
  } | null;
  cpu: {
    /** Nanoseconds since the epoch. */
    timestamp: number;
    usageCoreNanoSeconds: UInt64Value | null;
    usageNanoCores: UInt64Value | null;
  } | null;
  memory: {
    timestamp: number;
    workingSetBytes: UInt64Value | null;
    availableBytes: UInt64Value | null;
    usageBytes: UInt64Value | null;
    rssBytes: UInt64Value | null;
    pageFaults: UInt64Value | null;
    majorPageFaults: UInt64Value | null;
  } | null;
}
