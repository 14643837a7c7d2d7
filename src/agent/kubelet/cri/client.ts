// A CRI runtime.v1 client over gRPC (unix socket), with one typed method per RPC the kubelet
// uses. The proto is embedded (the agent ships as one file); methods.ts makes the codecs. Failed
// calls throw CriError, whose message reads like Go's gRPC errors (`rpc error: code = NotFound
// desc = ...`) because users see it in pod statuses and events.
import { Client, credentials, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { type CriService, criMethod } from './methods.js';
import type {
  Container,
  ContainerConfig,
  ContainerFilter,
  ContainerStats,
  ContainerStatus,
  ExecSyncResponse,
  Image,
  ImageSpec,
  PodSandbox,
  PodSandboxConfig,
  PodSandboxFilter,
  PodSandboxStatus,
  RuntimeCondition,
  VersionResponse,
} from './types.js';

/** CRI ExecRequest: the command and the streams the client wants. */
export interface StreamingExecRequest {
  readonly containerId: string;
  readonly cmd: readonly string[];
  readonly tty: boolean;
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
}

export const DEFAULT_CRI_ENDPOINT = 'unix:///run/containerd/containerd.sock';
/** The kubelet's --runtime-request-timeout default. */
const REQUEST_TIMEOUT_MS = 2 * 60_000;
/** The kubelet's maximum CRI message size. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** Go's names of the gRPC codes (codes.Code.String()). */
const CODE_NAMES: Readonly<Record<number, string>> = {
  [status.OK]: 'OK',
  [status.CANCELLED]: 'Canceled',
  [status.UNKNOWN]: 'Unknown',
  [status.INVALID_ARGUMENT]: 'InvalidArgument',
  [status.DEADLINE_EXCEEDED]: 'DeadlineExceeded',
  [status.NOT_FOUND]: 'NotFound',
  [status.ALREADY_EXISTS]: 'AlreadyExists',
  [status.PERMISSION_DENIED]: 'PermissionDenied',
  [status.RESOURCE_EXHAUSTED]: 'ResourceExhausted',
  [status.FAILED_PRECONDITION]: 'FailedPrecondition',
  [status.ABORTED]: 'Aborted',
  [status.OUT_OF_RANGE]: 'OutOfRange',
  [status.UNIMPLEMENTED]: 'Unimplemented',
  [status.INTERNAL]: 'Internal',
  [status.UNAVAILABLE]: 'Unavailable',
  [status.DATA_LOSS]: 'DataLoss',
  [status.UNAUTHENTICATED]: 'Unauthenticated',
};

/** A failed CRI call: the gRPC code, the runtime's own words, and Go's rendering of both. */
export class CriError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly details: string,
  ) {
    super(`rpc error: code = ${CODE_NAMES[code] ?? `Code(${code})`} desc = ${details}`);
    this.name = 'CriError';
  }

  get notFound(): boolean {
    return this.code === status.NOT_FOUND;
  }
}

export function isCriNotFound(error: unknown): boolean {
  return error instanceof CriError && error.notFound;
}

/**
 * The kubelet's `operation_type` of each RPC, as its instrumented runtime service names them
 * (`RunPodSandbox` is `run_podsandbox`).
 */
const OPERATION_TYPES: Readonly<Record<string, string>> = {
  Version: 'version',
  Status: 'status',
  RunPodSandbox: 'run_podsandbox',
  StopPodSandbox: 'stop_podsandbox',
  RemovePodSandbox: 'remove_podsandbox',
  PodSandboxStatus: 'podsandbox_status',
  ListPodSandbox: 'list_podsandbox',
  CreateContainer: 'create_container',
  StartContainer: 'start_container',
  StopContainer: 'stop_container',
  RemoveContainer: 'remove_container',
  ListContainers: 'list_containers',
  ContainerStatus: 'container_status',
  ExecSync: 'exec_sync',
  Exec: 'exec',
  Attach: 'attach',
  PortForward: 'port_forward',
  ListContainerStats: 'list_container_stats',
  ListImages: 'list_images',
  ImageStatus: 'image_status',
  PullImage: 'pull_image',
};

/** Told of every finished call: its operation type, how long it took, whether it failed. */
export type CriOperationObserver = (operation: string, seconds: number, failed: boolean) => void;

export interface CriClientOptions {
  /** `unix:///run/containerd/containerd.sock` by default. */
  readonly endpoint?: string;
  readonly timeoutMs?: number;
  readonly onOperation?: CriOperationObserver;
}

export class CriClient {
  private readonly client: Client;
  private readonly timeoutMs: number;
  private readonly onOperation: CriOperationObserver | undefined;

  constructor(options: CriClientOptions = {}) {
    this.client = new Client(options.endpoint ?? DEFAULT_CRI_ENDPOINT, credentials.createInsecure(), {
      'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
      'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
    });
    this.timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
    this.onOperation = options.onOperation;
  }

  close(): void {
    this.client.close();
  }

  version(): Promise<VersionResponse> {
    return this.runtime('Version', { version: 'v1' });
  }

  /** The runtime's conditions (RuntimeReady, NetworkReady). */
  async status(timeoutMs?: number): Promise<RuntimeCondition[]> {
    const response = await this.runtime<{ status: { conditions: RuntimeCondition[] } | null }>(
      'Status',
      {},
      timeoutMs,
    );
    return response.status?.conditions ?? [];
  }

  async runPodSandbox(config: PodSandboxConfig, runtimeHandler = ''): Promise<string> {
    const response = await this.runtime<{ podSandboxId: string }>('RunPodSandbox', {
      config,
      runtimeHandler,
    });
    return response.podSandboxId;
  }

  async stopPodSandbox(podSandboxId: string): Promise<void> {
    await this.runtime('StopPodSandbox', { podSandboxId });
  }

  async removePodSandbox(podSandboxId: string): Promise<void> {
    await this.runtime('RemovePodSandbox', { podSandboxId });
  }

  async podSandboxStatus(podSandboxId: string): Promise<PodSandboxStatus> {
    const response = await this.runtime<{ status: PodSandboxStatus | null }>('PodSandboxStatus', {
      podSandboxId,
    });
    if (!response.status)
      throw new CriError('PodSandboxStatus', status.NOT_FOUND, `sandbox ${podSandboxId} has no status`);
    return response.status;
  }

  async listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]> {
    const response = await this.runtime<{ items: PodSandbox[] }>('ListPodSandbox', { filter });
    return response.items;
  }

  async createContainer(
    podSandboxId: string,
    config: ContainerConfig,
    sandboxConfig: PodSandboxConfig,
  ): Promise<string> {
    const response = await this.runtime<{ containerId: string }>('CreateContainer', {
      podSandboxId,
      config,
      sandboxConfig,
    });
    return response.containerId;
  }

  async startContainer(containerId: string): Promise<void> {
    await this.runtime('StartContainer', { containerId });
  }

  /** Stops with SIGTERM (or the image's stop signal), then SIGKILL after `timeoutSeconds`. */
  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    // The runtime may take the whole grace period: the call must outlive it.
    await this.runtime(
      'StopContainer',
      { containerId, timeout: timeoutSeconds },
      this.timeoutMs + timeoutSeconds * 1000,
    );
  }

  async removeContainer(containerId: string): Promise<void> {
    await this.runtime('RemoveContainer', { containerId });
  }

  async listContainers(filter?: ContainerFilter): Promise<Container[]> {
    const response = await this.runtime<{ containers: Container[] }>('ListContainers', { filter });
    return response.containers;
  }

  async containerStatus(containerId: string): Promise<ContainerStatus> {
    const response = await this.runtime<{ status: ContainerStatus | null }>('ContainerStatus', {
      containerId,
    });
    if (!response.status)
      throw new CriError('ContainerStatus', status.NOT_FOUND, `container ${containerId} has no status`);
    return response.status;
  }

  /** CPU and memory figures of the runtime's containers (of one sandbox when given). */
  async listContainerStats(podSandboxId?: string): Promise<ContainerStats[]> {
    const filter = podSandboxId ? { podSandboxId } : undefined;
    const response = await this.runtime<{ stats: ContainerStats[] }>('ListContainerStats', { filter });
    return response.stats;
  }

  /** Runs a command in a container; `timeoutSeconds` 0 waits for ever. */
  execSync(containerId: string, cmd: readonly string[], timeoutSeconds: number): Promise<ExecSyncResponse> {
    const deadline = timeoutSeconds > 0 ? timeoutSeconds * 1000 + 5_000 : 24 * 3600_000;
    return this.runtime('ExecSync', { containerId, cmd, timeout: timeoutSeconds }, deadline);
  }

  /** Prepares a streaming exec: the URL of the runtime's streaming server that serves it. */
  async exec(request: StreamingExecRequest): Promise<string> {
    const response = await this.runtime<{ url: string }>('Exec', request);
    return response.url;
  }

  /** Prepares an attach to the container's own streams: the streaming server's URL for it. */
  async attach(request: Omit<StreamingExecRequest, 'cmd'>): Promise<string> {
    const response = await this.runtime<{ url: string }>('Attach', request);
    return response.url;
  }

  /** Prepares port forwarding into the sandbox's network: the streaming server's URL for it. */
  async portForward(podSandboxId: string, ports: readonly number[]): Promise<string> {
    const response = await this.runtime<{ url: string }>('PortForward', { podSandboxId, port: ports });
    return response.url;
  }

  async listImages(image?: ImageSpec): Promise<Image[]> {
    const response = await this.image<{ images: Image[] }>('ListImages', {
      filter: image ? { image } : undefined,
    });
    return response.images;
  }

  /** The image, or null when the runtime does not hold it. */
  async imageStatus(image: ImageSpec): Promise<Image | null> {
    const response = await this.image<{ image: Image | null }>('ImageStatus', { image });
    // An absent image comes back as an empty message with proto defaults.
    return response.image?.id ? response.image : null;
  }

  /** Pulls and returns the image reference (its id). */
  async pullImage(image: ImageSpec, sandboxConfig?: PodSandboxConfig): Promise<string> {
    const response = await this.image<{ imageRef: string }>('PullImage', { image, sandboxConfig });
    return response.imageRef;
  }

  private runtime<R>(name: string, request: object, timeoutMs?: number): Promise<R> {
    return this.call('RuntimeService', name, request, timeoutMs);
  }

  private image<R>(name: string, request: object, timeoutMs?: number): Promise<R> {
    return this.call('ImageService', name, request, timeoutMs);
  }

  private call<R>(
    service: CriService,
    name: string,
    request: object,
    timeoutMs = this.timeoutMs,
  ): Promise<R> {
    const method = criMethod(service, name);
    const started = performance.now();
    const observe = (failed: boolean) =>
      this.onOperation?.(OPERATION_TYPES[name] ?? name, (performance.now() - started) / 1000, failed);
    return new Promise<R>((resolve, reject) => {
      this.client.makeUnaryRequest<object, object>(
        method.path,
        method.serialize,
        method.deserialize,
        request,
        new Metadata(),
        { deadline: Date.now() + timeoutMs },
        (error: ServiceError | null, response?: object) => {
          observe(error !== null);
          if (error) reject(new CriError(name, error.code, error.details || error.message));
          else resolve(response as R);
        },
      );
    });
  }
}
