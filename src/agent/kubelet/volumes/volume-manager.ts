// The kubelet's volume manager for one node: each pod's volumes under
// <root>/pods/<uid>/volumes/kubernetes.io~<plugin>/<name>, the mounts of each container, and a
// resync that keeps configMap, secret, downwardAPI and projected contents (and tokens) current.
import { chmod, mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Quantity } from '../../../api/quantity.js';
import type { Container, Pod, Volume, VolumeMount } from '../../../api/types/core-v1.generated.js';
import type { Client } from '../../../client/types.js';
import { EnvironmentError, makeEnvironmentVariables } from '../env/container-env.js';
import { ApiObjects } from './api-objects.js';
import { type Payload, writeAtomically } from './atomic-writer.js';
import { ClaimProcessingError, setUpClaimVolume } from './claims.js';
import { errorText, mountFailure, VolumeSetUpError } from './errors.js';
import { checkHostPathType } from './host-path.js';
import { type Mounter, systemMounter } from './mounter.js';
import { setVolumeOwnership } from './ownership.js';
import { DEFAULT_FILE_MODE, downwardApiPayload, keyedSourcePayload, projectedPayload } from './payloads.js';
import { ServiceAccountTokenManager } from './service-account-tokens.js';
import { expandSubPathExpr, resolveSubPath } from './subpath.js';

export interface ContainerMount {
  containerPath: string;
  hostPath: string;
  readOnly: boolean;
  propagation?: 'private' | 'host-to-container' | 'bidirectional';
}

export interface VolumeManager {
  /**
   * Prepares the pod's volumes under /var/lib/kubelet/pods/<uid>/volumes; returns the mounts of
   * each container (by name, init containers too). Idempotent; refreshes configMap/secret/
   * projected contents. Throws VolumeSetUpError { reason: 'FailedMount', message } when a source
   * is missing.
   */
  setUp(pod: Pod): Promise<Map<string, ContainerMount[]>>;
  tearDown(podUid: string): Promise<void>;
  /**
   * The latest object of a pod already set up: the resync writes from it, and a change of its
   * labels or annotations rewrites the volumes at once (downwardAPI files follow them, as
   * upstream's volume manager remounts on a pod update).
   */
  podUpdated(pod: Pod): void;
}

export interface VolumeManagerOptions {
  client: Client;
  nodeName: string;
  rootDir?: string;
  /** Mount operations (tmpfs); the node's `mount`/`umount` by default. */
  mounter?: Mounter;
  /** How often set-up pods have their API-backed volumes refreshed; 60 s by default, 0 disables. */
  resyncSeconds?: number;
}

export const DEFAULT_ROOT_DIR = '/var/lib/kubelet';
const DEFAULT_RESYNC_SECONDS = 60;

/** Where a volume lives, and whether containers must mount it read-only. */
interface PreparedVolume {
  readonly path: string;
  /** configMap, secret, downwardAPI and projected volumes are always mounted read-only. */
  readonly apiData: boolean;
  /** A claim's `readOnly`: every mount of the volume is read-only. */
  readonly readOnly?: boolean;
}

const PROPAGATION: Readonly<Record<string, ContainerMount['propagation']>> = {
  None: 'private',
  HostToContainer: 'host-to-container',
  Bidirectional: 'bidirectional',
};

function pluginDir(volume: Volume): string | undefined {
  if (volume.emptyDir) return 'kubernetes.io~empty-dir';
  if (volume.configMap) return 'kubernetes.io~configmap';
  if (volume.secret) return 'kubernetes.io~secret';
  if (volume.downwardAPI) return 'kubernetes.io~downward-api';
  if (volume.projected) return 'kubernetes.io~projected';
  return undefined;
}

/** The uid every container runs as, when they all name the same one (the kubelet's FsUserFrom). */
function commonRunAsUser(pod: Pod): number | undefined {
  let user: number | undefined;
  for (const container of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    const uid = container.securityContext?.runAsUser ?? pod.spec?.securityContext?.runAsUser;
    if (uid === undefined || (user !== undefined && user !== uid)) return undefined;
    user = uid;
  }
  return user;
}

function memoryLimitOfPod(pod: Pod): bigint | undefined {
  let sum = 0n;
  for (const container of pod.spec?.containers ?? []) {
    const limit = container.resources?.limits?.memory;
    if (limit === undefined) return undefined;
    sum += Quantity.parse(String(limit)).value();
  }
  return sum > 0n ? sum : undefined;
}

/** Whether the metadata downwardAPI volumes can show (labels, annotations) is the same. */
function sameMetadataForVolumes(before: Pod, after: Pod): boolean {
  const same = (a: Record<string, string> | undefined, b: Record<string, string> | undefined) => {
    const left = Object.entries(a ?? {});
    return left.length === Object.keys(b ?? {}).length && left.every(([key, value]) => b?.[key] === value);
  };
  return (
    same(before.metadata?.labels, after.metadata?.labels) &&
    same(before.metadata?.annotations, after.metadata?.annotations)
  );
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

export class KubeletVolumeManager implements VolumeManager {
  private readonly rootDir: string;
  private readonly mounter: Mounter;
  private readonly objects: ApiObjects;
  private readonly tokens: ServiceAccountTokenManager;
  /** Pods set up and not torn down, for the resync. */
  private readonly pods = new Map<string, Pod>();
  /** One operation at a time per pod. */
  private readonly queues = new Map<string, Promise<unknown>>();
  private resync: NodeJS.Timeout | undefined;

  constructor(private readonly options: VolumeManagerOptions) {
    this.rootDir = options.rootDir ?? DEFAULT_ROOT_DIR;
    this.mounter = options.mounter ?? systemMounter();
    this.objects = new ApiObjects(options.client, options.nodeName);
    this.tokens = new ServiceAccountTokenManager(options.client);
  }

  podDir(uid: string): string {
    return join(this.rootDir, 'pods', uid);
  }

  setUp(pod: Pod): Promise<Map<string, ContainerMount[]>> {
    const uid = pod.metadata?.uid ?? '';
    if (uid === '') return Promise.reject(new Error('a pod without a uid has no volume directory'));
    return this.serialized(uid, async () => {
      const mounts = await this.setUpNow(pod);
      this.pods.set(uid, pod);
      this.startResync();
      return mounts;
    });
  }

  podUpdated(pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    const known = this.pods.get(uid);
    if (!known || known === pod) return;
    this.pods.set(uid, pod);
    if (sameMetadataForVolumes(known, pod)) return;
    // Failures surface at the pod worker's next set-up, as in the resync.
    this.serialized(uid, async () => {
      const latest = this.pods.get(uid);
      if (latest) await this.setUpNow(latest);
    }).catch(() => undefined);
  }

  tearDown(podUid: string): Promise<void> {
    this.pods.delete(podUid);
    if (this.pods.size === 0) this.stopResync();
    return this.serialized(podUid, async () => {
      const dir = this.podDir(podUid);
      for (const point of await this.mounter.mountPointsUnder(dir)) await this.mounter.unmount(point);
      await rm(dir, { recursive: true, force: true });
      this.tokens.forgetPod(podUid);
    });
  }

  private serialized<T>(uid: string, operation: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(uid) ?? Promise.resolve();
    const next = previous.then(operation, operation);
    const settled = next.catch(() => undefined);
    this.queues.set(uid, settled);
    void settled.then(() => {
      if (this.queues.get(uid) === settled) this.queues.delete(uid);
    });
    return next;
  }

  private startResync(): void {
    const seconds = this.options.resyncSeconds ?? DEFAULT_RESYNC_SECONDS;
    if (this.resync || seconds <= 0) return;
    this.resync = setInterval(() => {
      for (const uid of this.pods.keys()) {
        // Failures surface at the pod worker's next set-up; the resync only refreshes contents.
        this.serialized(uid, async () => {
          const latest = this.pods.get(uid);
          if (latest) await this.setUpNow(latest);
        }).catch(() => undefined);
      }
    }, seconds * 1000);
    this.resync.unref();
  }

  private stopResync(): void {
    if (this.resync) clearInterval(this.resync);
    this.resync = undefined;
  }

  private async setUpNow(pod: Pod): Promise<Map<string, ContainerMount[]>> {
    const uid = pod.metadata!.uid!;
    const volumesDir = join(this.podDir(uid), 'volumes');
    await mkdir(volumesDir, { recursive: true, mode: 0o750 });
    const prepared = new Map<string, PreparedVolume>();
    let firstFailure: VolumeSetUpError | undefined;
    const unprocessed: ClaimProcessingError[] = [];
    for (const volume of pod.spec?.volumes ?? []) {
      try {
        prepared.set(volume.name, await this.setUpVolume(pod, volume, volumesDir));
      } catch (error) {
        if (error instanceof ClaimProcessingError) unprocessed.push(error);
        else
          firstFailure ??=
            error instanceof VolumeSetUpError ? error : mountFailure(volume.name, errorText(error));
      }
    }
    if (unprocessed.length > 0) throw claimsFailure(unprocessed);
    if (firstFailure) throw firstFailure;
    const mounts = new Map<string, ContainerMount[]>();
    const spec = pod.spec ?? { containers: [] };
    const containers: Container[] = [
      ...(spec.initContainers ?? []),
      ...(spec.containers ?? []),
      ...((spec.ephemeralContainers ?? []) as Container[]),
    ];
    for (const container of containers) {
      mounts.set(container.name, await this.containerMounts(pod, container, prepared));
    }
    return mounts;
  }

  private async containerMounts(
    pod: Pod,
    container: Container,
    prepared: ReadonlyMap<string, PreparedVolume>,
  ): Promise<ContainerMount[]> {
    const mounts: ContainerMount[] = [];
    let env: Map<string, string> | undefined;
    for (const mount of container.volumeMounts ?? []) {
      const volume = prepared.get(mount.name);
      if (!volume) continue;
      let hostPath = volume.path;
      let subPath = mount.subPath ?? '';
      if (mount.subPathExpr) {
        env ??= await this.containerEnvironment(pod, container);
        subPath = expandSubPathExpr(mount.subPathExpr, env, container.name);
      }
      if (subPath !== '') hostPath = await resolveSubPath(volume.path, subPath, mount.name, container.name);
      mounts.push(toContainerMount(mount, hostPath, volume.apiData || volume.readOnly === true));
    }
    return mounts;
  }

  /** The container's environment (without service variables), which subPathExpr expands with. */
  private async containerEnvironment(pod: Pod, container: Container): Promise<Map<string, string>> {
    const addresses = {
      podIPs: (pod.status?.podIPs ?? []).map((ip) => ip.ip),
      hostIPs: (pod.status?.hostIPs ?? []).map((ip) => ip.ip),
    };
    try {
      const env = await makeEnvironmentVariables(pod, container, addresses, this.objects, new Map());
      return new Map(env.map((entry) => [entry.key, entry.value]));
    } catch (error) {
      if (!(error instanceof EnvironmentError)) throw error;
      throw new VolumeSetUpError('CreateContainerConfigError', error.message, container.name);
    }
  }

  private async setUpVolume(pod: Pod, volume: Volume, volumesDir: string): Promise<PreparedVolume> {
    if (volume.persistentVolumeClaim || volume.ephemeral) {
      const claimed = await setUpClaimVolume(this.options.client, pod, volume);
      return { path: claimed.path, apiData: false, readOnly: claimed.readOnly };
    }
    if (volume.hostPath) {
      await checkHostPathType(volume.hostPath.path, volume.hostPath.type);
      return { path: volume.hostPath.path, apiData: false };
    }
    const plugin = pluginDir(volume);
    if (!plugin) {
      const kind = Object.keys(volume).find((key) => key !== 'name') ?? 'unknown';
      throw mountFailure(volume.name, `volume type ${kind} is not supported by this kubelet`);
    }
    const dir = join(volumesDir, plugin, volume.name);
    const fsGroup = pod.spec?.securityContext?.fsGroup;
    if (volume.emptyDir) {
      await this.setUpEmptyDir(pod, volume, dir, fsGroup);
      return { path: dir, apiData: false };
    }
    const namespace = pod.metadata?.namespace ?? '';
    // Secrets and projected volumes (tokens) never touch the node's disk.
    const inMemory = volume.secret !== undefined || volume.projected !== undefined;
    await this.ensureDir(dir, inMemory ? await this.tmpfsSize(pod, undefined) : undefined);
    await openToAll(dir);
    let payload: Payload;
    if (volume.configMap || volume.secret) {
      const source = volume.configMap
        ? { ...volume.configMap, kind: 'configmap' as const, name: volume.configMap.name ?? '' }
        : { ...volume.secret!, kind: 'secret' as const, name: volume.secret!.secretName ?? '' };
      payload = await keyedSourcePayload(
        this.objects,
        namespace,
        source,
        source.defaultMode ?? DEFAULT_FILE_MODE,
      );
    } else if (volume.downwardAPI) {
      const source = volume.downwardAPI;
      payload = await downwardApiPayload(
        source.items,
        pod,
        source.defaultMode ?? DEFAULT_FILE_MODE,
        this.objects,
      );
    } else {
      payload = await projectedPayload(volume.projected!, pod, {
        objects: this.objects,
        tokens: this.tokens,
        fsUser: commonRunAsUser(pod),
        fsGroup,
      });
    }
    await writeAtomically(dir, payload, {
      setPerms: fsGroup === undefined ? undefined : (tsDir) => this.own(dir, tsDir, fsGroup),
    });
    return { path: dir, apiData: true };
  }

  private async own(volumeDir: string, tsDir: string, fsGroup: number): Promise<void> {
    await setVolumeOwnership(tsDir, fsGroup, true);
    await setVolumeOwnership(volumeDir, fsGroup, true).catch(() => undefined);
  }

  private async setUpEmptyDir(pod: Pod, volume: Volume, dir: string, fsGroup: number | undefined) {
    const source = volume.emptyDir!;
    const medium = source.medium ?? '';
    if (medium !== '' && medium !== 'Memory') {
      throw mountFailure(volume.name, `unknown storage medium "${medium}"`);
    }
    const fresh = !(await isDirectory(dir));
    const sizeLimit =
      source.sizeLimit === undefined ? undefined : Quantity.parse(String(source.sizeLimit)).value();
    await this.ensureDir(dir, medium === 'Memory' ? await this.tmpfsSize(pod, sizeLimit) : undefined);
    if (fresh) {
      await chmod(dir, 0o777);
      if (fsGroup !== undefined) await setVolumeOwnership(dir, fsGroup, false);
    }
  }

  /** Creates the volume directory; with a size (tmpfs wanted) mounts a tmpfs there once. */
  private async ensureDir(dir: string, tmpfsSize: bigint | undefined): Promise<void> {
    await mkdir(dir, { recursive: true, mode: 0o750 });
    if (tmpfsSize === undefined) return;
    const mounted = (await this.mounter.mountPointsUnder(dir)).includes(dir);
    if (!mounted) await this.mounter.mountTmpfs(dir, tmpfsSize > 0n ? tmpfsSize : undefined);
  }

  /**
   * A memory-backed volume's size: the node's allocatable memory, or the pod's memory limit if
   * smaller, or the volume's sizeLimit if smaller still. 0 means the tmpfs default.
   */
  private async tmpfsSize(pod: Pod, sizeLimit: bigint | undefined): Promise<bigint> {
    const allocatable = await this.objects.nodeAllocatable().catch(() => ({}) as Record<string, string>);
    let size = allocatable.memory === undefined ? 0n : Quantity.parse(allocatable.memory).value();
    const podLimit = memoryLimitOfPod(pod);
    if (podLimit !== undefined && (size === 0n || podLimit <= size)) size = podLimit;
    if (sizeLimit !== undefined && sizeLimit > 0n && (size === 0n || sizeLimit <= size)) size = sizeLimit;
    return size;
  }
}

/**
 * Upstream wraps configMap, secret, downwardAPI and projected volumes in an emptyDir, whose
 * directory gets mode 0777 (setgid left alone): containers running as any user can enter it.
 */
async function openToAll(dir: string): Promise<void> {
  const info = await stat(dir);
  if ((info.mode & 0o777) !== 0o777) await chmod(dir, (info.mode & 0o7000) | 0o777);
}

/**
 * WaitForAttachAndMount's error once the populator failed on claims, as the pod worker reports it:
 * those volumes are unmounted and unprocessed; the first claim's reason follows.
 */
function claimsFailure(errors: readonly ClaimProcessingError[]): VolumeSetUpError {
  const names = errors.map((error) => error.volumeName).sort();
  return new VolumeSetUpError(
    'FailedMount',
    `Unable to attach or mount volumes: unmounted volumes=[${names.join(' ')}], unattached volumes=[], failed to process volumes=[${names.join(' ')}]: ${errors.map((error) => error.message).join('; ')}`,
  );
}

function toContainerMount(mount: VolumeMount, hostPath: string, apiData: boolean): ContainerMount {
  const propagation = mount.mountPropagation === undefined ? undefined : PROPAGATION[mount.mountPropagation];
  return {
    containerPath: mount.mountPath,
    hostPath,
    readOnly: mount.readOnly === true || apiData,
    ...(propagation ? { propagation } : {}),
  };
}
