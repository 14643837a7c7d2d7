// The kubelet's pod management for one node: the pods bound to the node come from an informer,
// each gets a worker that syncs it against the runtime one sync at a time (start, restart,
// terminate, clean up), runtime changes wake the workers (PLEG), and statuses go to the
// apiserver through the status manager. The runtime is the source of truth: after an agent or
// node restart, running sandboxes and containers are adopted by their labels, dead ones replaced.
import { rm } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { isMirrorPod } from '../../api/mirror-pods.js';
import { isPodTerminal } from '../../api/pod-conditions.js';
import { Quantity } from '../../api/quantity.js';
import type { Container, Node, Pod, PodStatus, Service } from '../../api/types/core-v1.generated.js';
import { EventBroadcaster } from '../../client/events/index.js';
import { objectOf, SharedInformerFactory } from '../../client/informers/index.js';
import { PODS, SERVICES } from '../../client/resources.js';
import { isConflict, isNotFound } from '../../client/rest/index.js';
import type { Client } from '../../client/types.js';
import { checkPodAdmission } from './admission/predicates.js';
import { Backoff } from './backoff.js';
import { CLUSTER_DNS_IP, CLUSTER_DOMAIN, type DnsSettings } from './config/dns.js';
import { applyPodCgroup, removePodCgroup } from './config/pod-cgroup.js';
import { POD_LOGS_ROOT, podLogDirectory } from './config/sandbox-config.js';
import { CriClient, isCriNotFound, type StreamingExecRequest } from './cri/client.js';
import { serviceEnvironment } from './env/service-env.js';
import { ImageManager, type RecordEvent } from './images/image-manager.js';
import type { ExecInContainer } from './lifecycle/hooks.js';
import { KubeletMetrics, type PodSyncType } from './metrics.js';
import { Pleg } from './pleg.js';
import {
  createProbeManager,
  type ProbeAttemptEvent,
  type ProbeManager,
  type ProbeResultEvent,
} from './prober/index.js';
import { EMPTY_RUNTIME, type PodRuntime, PodRuntimeReader } from './runtime/pod-runtime.js';
import { RuntimeHealth } from './runtime-health.js';
import { StaticPodSource } from './static/file-source.js';
import { isStaticPod, podFullName } from './static/manifest.js';
import { MirrorPods } from './static/mirror-pods.js';
import { StatsProvider } from './stats/provider.js';
import type { Summary } from './stats/summary.js';
import type { StartFailure } from './status/container-statuses.js';
import { generatePodStatus } from './status/pod-status.js';
import { StatusManager } from './status/status-manager.js';
import { killPod, remainingGracePeriod } from './sync/kill.js';
import { podSandboxChanged } from './sync/pod-actions.js';
import { KUBELET_ROOT, PodFiles } from './sync/pod-files.js';
import { containerRef, PodSyncer, podRef } from './sync/sync-pod.js';
import { ApiObjects } from './volumes/api-objects.js';
import {
  type ContainerMount,
  createVolumeManager,
  type VolumeManager,
  VolumeSetUpError,
} from './volumes/index.js';

const RESYNC_MS = 60_000;
const MAX_RETRY_MS = 10_000;
const MOUNT_RETRY_INITIAL_MS = 500;
const MOUNT_RETRY_MAX_MS = 2 * 60_000 + 2_000;
/** Orphaned pods (no API object) are killed with this grace period, as the kubelet does. */
const ORPHAN_GRACE_PERIOD_SECONDS = 1;
const DEADLINE_EXCEEDED = {
  reason: 'DeadlineExceeded',
  message: 'Pod was active on the node longer than the specified deadline',
};

export interface KubeletOptions {
  readonly client: Client;
  readonly nodeName: string;
  readonly nodeIP: string;
  /** The cluster's name, for hints in image pull errors. */
  readonly clusterName?: string;
  readonly cri?: CriClient;
  readonly volumes?: VolumeManager;
  readonly clusterDNS?: readonly string[];
  readonly clusterDomain?: string;
  /** The node's resolver, for pods with dnsPolicy Default. */
  readonly hostDns?: DnsSettings['host'];
  readonly rootDir?: string;
  readonly logRoot?: string;
  /** The static pod manifest directory (upstream's staticPodPath); none when unset. */
  readonly staticPodPath?: string;
  /** The registered Node (for memory capacity); read when needed. */
  readonly node?: () => Node | undefined;
  /** The runtime's readiness changed (the node's Ready condition should follow). */
  readonly onRuntimeHealthChange?: (reasons: readonly string[]) => void;
  readonly log?: (message: string) => void;
}

/** One pod's worker state. */
interface PodWorker {
  readonly uid: string;
  /** The latest API object (the last one seen once the pod is gone from the API). */
  pod: Pod;
  /** Deleted from the API (or never there: an orphan). */
  removed: boolean;
  /** The pod's containers will not run again. */
  terminal: boolean;
  /** Terminal, and its sandbox stopped and volumes torn down. */
  finished: boolean;
  /** The kubelet failed the pod itself (activeDeadlineSeconds, admission). */
  failure?: { reason: string; message: string };
  /** Passed admission (resources, affinity, host ports, taints): it counts for the pods admitted after it. */
  admitted: boolean;
  /** The grace-0 delete of a terminated pod was sent. */
  deleteSent: boolean;
  running: boolean;
  pending: boolean;
  timer?: NodeJS.Timeout;
  timerAt?: number;
  retries: number;
  mountRetryMs: number;
  done: boolean;
  /** When the kubelet first saw the pod (kubelet_pod_start_duration_seconds counts from here). */
  readonly firstSeen: number;
  /** Synced at least once: the first sync is a `create`. */
  synced: boolean;
  /** The API object changed since the last sync: the next sync is an `update`. */
  updated: boolean;
  /** Its turn to Running was counted in kubelet_pod_start_duration_seconds. */
  startObserved: boolean;
}

export class Kubelet {
  /** What /metrics on the kubelet's server shows. */
  readonly metrics: KubeletMetrics;
  readonly cri: CriClient;
  readonly health: RuntimeHealth;
  private readonly options: KubeletOptions;
  private readonly log: (message: string) => void;
  private readonly informers: SharedInformerFactory;
  private readonly events: EventBroadcaster;
  private readonly record: RecordEvent;
  private readonly reader: PodRuntimeReader;
  private readonly statuses: StatusManager;
  private readonly volumes: VolumeManager;
  private readonly probes: ProbeManager;
  private readonly images: ImageManager;
  private readonly files: PodFiles;
  private readonly syncer: PodSyncer;
  private readonly pleg: Pleg;
  private readonly mirrors: MirrorPods;
  /** The static pods of the manifest directory, by uid. */
  private readonly staticPods = new Map<string, Pod>();
  private staticPodsLoaded = false;
  private readonly workers = new Map<string, PodWorker>();
  private readonly startFailures = new Map<string, Map<string, StartFailure>>();
  private readonly livenessFailed = new Set<string>();
  private readonly startupFailed = new Set<string>();
  private readonly probed = new Set<string>();
  private readonly containerBackoff = new Backoff();
  private readonly logRoot: string;
  private readonly stats: StatsProvider;
  private podsSynced = false;
  private stopped = false;

  constructor(options: KubeletOptions) {
    this.options = options;
    this.log = options.log ?? ((message) => console.error(message));
    this.metrics = new KubeletMetrics(options.nodeName, () => this.pleg.runtimeCounts());
    this.cri =
      options.cri ??
      new CriClient({
        onOperation: (operation, seconds, failed) =>
          this.metrics.runtimeOperation(operation, seconds, failed),
      });
    this.logRoot = options.logRoot ?? POD_LOGS_ROOT;
    this.informers = new SharedInformerFactory(options.client);
    this.events = new EventBroadcaster(options.client, { log: this.log });
    const recorder = this.events.newRecorder({ component: 'kubelet', host: options.nodeName });
    this.record = (ref, type, reason, message) => recorder.event(ref, type, reason, message);
    this.reader = new PodRuntimeReader(this.cri);
    this.mirrors = new MirrorPods({
      client: options.client,
      nodeName: options.nodeName,
      node: options.node,
      log: this.log,
    });
    // A static pod's status goes to its mirror pod.
    this.statuses = new StatusManager(options.client, {
      log: this.log,
      apiUid: (uid) => {
        const pod = this.staticPods.get(uid);
        return pod ? this.mirrors.mirrorUidOf(pod) : undefined;
      },
    });
    this.volumes =
      options.volumes ??
      createVolumeManager({ client: options.client, nodeName: options.nodeName, rootDir: options.rootDir });
    const exec: ExecInContainer = async (containerId, cmd, timeoutSeconds) => {
      const result = await this.cri.execSync(containerId, cmd, timeoutSeconds);
      return {
        exitCode: result.exitCode,
        stdout: result.stdout.toString('utf8'),
        stderr: result.stderr.toString('utf8'),
      };
    };
    this.probes = createProbeManager({
      execSync: (containerId, cmd, timeoutSeconds) => exec(containerId, cmd, timeoutSeconds),
      onResult: (event) => this.onProbeResult(event),
      onAttempt: (event) => this.onProbeAttempt(event),
    });
    this.images = new ImageManager(this.cri, this.record, { clusterName: options.clusterName });
    this.files = new PodFiles(options.rootDir ?? KUBELET_ROOT);
    const clusterDNS = options.clusterDNS ?? [CLUSTER_DNS_IP];
    const dns: DnsSettings = {
      clusterDNS,
      clusterDomain: options.clusterDomain ?? CLUSTER_DOMAIN,
      host: options.hostDns ?? { servers: clusterDNS, searches: [], options: [] },
    };
    const objects = new ApiObjects(options.client, options.nodeName);
    const services = this.informers.informerFor<Service>(SERVICES);
    this.syncer = new PodSyncer({
      cri: this.cri,
      record: this.record,
      exec,
      containerRef,
      podIP: (pod) => this.podIPOf(pod),
      log: this.log,
      images: this.images,
      files: this.files,
      dns,
      logRoot: this.logRoot,
      hostIPs: [options.nodeIP],
      memoryCapacity: () => this.memoryCapacity(),
      envObjects: objects,
      serviceEnv: (namespace, links) => serviceEnvironment(services.lister.list(), namespace, links),
      probeState: {
        livenessFailed: (id) => this.livenessFailed.has(id),
        startupResult: (id) =>
          this.startupFailed.has(id) ? 'failure' : this.probes.isStarted(id) ? 'success' : undefined,
      },
      containerStarted: (pod, container, id, podIP) => this.watchContainer(pod, container, id, podIP),
      containerBackoff: this.containerBackoff,
      podCgroup: (pod) => applyPodCgroup(pod),
      startFailures: (uid) => this.failuresOf(uid),
      metrics: this.metrics,
    });
    this.pleg = new Pleg(
      this.cri,
      (uid) => this.onRuntimeChange(uid),
      (result) => {
        this.reader.prune(result.ids);
        this.metrics.plegRelist(result.seconds, new Date());
      },
      this.log,
    );
    this.health = new RuntimeHealth(this.cri, options.onRuntimeHealthChange);
    this.stats = new StatsProvider({
      nodeName: options.nodeName,
      cri: this.cri,
      memoryCapacityBytes: () => this.memoryCapacity(),
    });
  }

  /** The pods this kubelet runs, with the status it last computed (the kubelet API's /pods). */
  pods(): Pod[] {
    const pods: Pod[] = [];
    for (const worker of this.workers.values()) {
      if (worker.removed) continue;
      const status = this.statuses.get(worker.uid);
      pods.push(status ? { ...worker.pod, status } : worker.pod);
    }
    return pods;
  }

  /** A container as the runtime has it, for reading its log; undefined once it is gone. */
  async containerStatus(containerId: string): Promise<{ logPath: string; running: boolean } | undefined> {
    try {
      const status = await this.cri.containerStatus(containerId);
      return { logPath: status.logPath, running: status.state === 'CONTAINER_RUNNING' };
    } catch (error) {
      if (isCriNotFound(error)) return undefined;
      throw error;
    }
  }

  /** CRI Exec: where the runtime's streaming server serves this exec (the server's /exec). */
  streamingExecUrl(request: StreamingExecRequest): Promise<string> {
    return this.cri.exec(request);
  }

  /** CRI Attach: where the runtime's streaming server serves this attach (the server's /attach). */
  streamingAttachUrl(request: Omit<StreamingExecRequest, 'cmd'>): Promise<string> {
    return this.cri.attach(request);
  }

  /** CRI PortForward into the pod's ready sandbox (the server's /portForward). */
  async streamingPortForwardUrl(podUid: string, ports: readonly number[]): Promise<string> {
    const runtime = await this.reader.read(podUid);
    const sandbox = runtime.sandboxes.find((s) => s.ready);
    if (!sandbox) throw new Error(`failed to find sandboxID for pod ${podUid}`);
    return this.cri.portForward(sandbox.id, ports);
  }

  /** The Summary API's node, pod and container CPU and memory (the server's /stats/summary). */
  statsSummary(): Promise<Summary> {
    return this.stats.summary();
  }

  /** The kubelet's metrics in the Prometheus text format (its server's /metrics). */
  metricsText(): string {
    return this.metrics.render();
  }

  /** The sync loop is alive: the runtime was relisted lately (the kubelet's PLEG health). */
  syncLoopHealthy(): boolean {
    return this.pleg.healthy();
  }

  /** Why the node is not ready as far as the container runtime goes (empty when it is). */
  runtimeNotReadyReasons(): readonly string[] {
    return this.health.notReadyReasons();
  }

  /** Runs until the signal aborts. */
  async run(signal: AbortSignal): Promise<void> {
    this.health.start(signal);
    const pods = this.informers.informerFor<Pod>(PODS, {
      fieldSelector: `spec.nodeName=${this.options.nodeName}`,
    });
    pods.addEventHandler({
      onAdd: (pod) => (isMirrorPod(pod) ? this.mirrorChanged(pod) : this.podChanged(pod, true)),
      onUpdate: (old, pod) =>
        isMirrorPod(pod) ? this.mirrorChanged(pod) : this.podChanged(pod, needsSync(old, pod)),
      onDelete: (object) => {
        const pod = objectOf(object);
        if (isMirrorPod(pod)) this.mirrorRemoved(pod);
        else this.podRemoved(pod);
      },
    });
    // Static pods are known before the runtime is relisted: their containers are not orphans.
    if (this.options.staticPodPath) {
      const source = new StaticPodSource({
        path: this.options.staticPodPath,
        nodeName: this.options.nodeName,
        onChange: (staticPods) => this.setStaticPods(staticPods),
        log: this.log,
      });
      await source.load();
      source.start(signal);
    }
    this.staticPodsLoaded = true;
    this.informers.start(signal);
    if (!(await this.informers.waitForCacheSync(signal))) return;
    this.podsSynced = true;
    this.deleteOrphanedMirrorPods();
    // The runtime may hold pods the API has forgotten while the kubelet was away.
    try {
      const relisted = await this.pleg.relist();
      for (const uid of relisted.uids) if (!this.workers.has(uid)) await this.adoptOrphan(uid);
    } catch (error) {
      this.log(`kubelet: initial runtime list failed: ${errorText(error)}`);
    }
    this.pleg.start(signal);
    const resync = setInterval(() => {
      for (const worker of this.workers.values()) this.enqueue(worker);
      this.deleteOrphanedMirrorPods();
    }, RESYNC_MS);
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    clearInterval(resync);
    this.stopped = true;
    for (const worker of this.workers.values()) clearTimeout(worker.timer);
    this.statuses.stop();
    await this.informers.stop();
    await this.events.shutdown();
    this.cri.close();
  }

  // --- events into workers ---

  private podChanged(pod: Pod, sync: boolean): void {
    const uid = pod.metadata?.uid ?? '';
    if (!uid) return;
    let worker = this.workers.get(uid);
    if (!worker) {
      worker = this.newWorker(uid, pod);
      sync = true;
    }
    worker.pod = pod;
    if (!pod.metadata?.deletionTimestamp) this.volumes.podUpdated(pod);
    if (sync) {
      worker.updated = true;
      this.enqueue(worker);
    }
  }

  private podRemoved(pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    const worker = this.workers.get(uid) ?? this.newWorker(uid, pod);
    worker.removed = true;
    this.enqueue(worker);
  }

  /** The manifest directory's pods now: new uids start, vanished ones stop. */
  private setStaticPods(pods: readonly Pod[]): void {
    const uids = new Set<string>();
    for (const pod of pods) {
      const uid = pod.metadata?.uid ?? '';
      uids.add(uid);
      if (this.staticPods.has(uid)) continue;
      this.staticPods.set(uid, pod);
      this.podChanged(pod, true);
    }
    for (const [uid, pod] of this.staticPods) {
      if (uids.has(uid)) continue;
      this.staticPods.delete(uid);
      this.podRemoved(this.workers.get(uid)?.pod ?? pod);
    }
  }

  private mirrorChanged(mirror: Pod): void {
    const isNew = this.mirrors.seen(mirror);
    const worker = this.staticWorker(podFullName(mirror));
    if (!worker) {
      if (this.podsSynced) this.deleteOrphanedMirrorPods();
      return;
    }
    if (isNew) this.statuses.rewrite(worker.uid);
    this.enqueue(worker);
  }

  private mirrorRemoved(mirror: Pod): void {
    this.mirrors.gone(mirror);
    const worker = this.staticWorker(podFullName(mirror));
    if (worker) this.enqueue(worker);
  }

  /** The running static pod of a full name (the newest, while an older one still stops). */
  private staticWorker(fullName: string): PodWorker | undefined {
    for (const pod of this.staticPods.values()) {
      if (podFullName(pod) !== fullName) continue;
      return this.workers.get(pod.metadata?.uid ?? '');
    }
    return undefined;
  }

  /** Mirror pods whose static pod is gone and stopped go too (upstream's housekeeping). */
  private deleteOrphanedMirrorPods(): void {
    if (!this.staticPodsLoaded) return;
    for (const fullName of this.mirrors.fullNames()) {
      if (this.staticWorker(fullName)) continue;
      if ([...this.workers.values()].some((w) => isStaticPod(w.pod) && podFullName(w.pod) === fullName))
        continue;
      const uid = this.mirrors.get(fullName)?.metadata?.uid;
      this.mirrors
        .delete(fullName, uid)
        .catch((error: unknown) =>
          this.log(`kubelet: failed deleting mirror pod ${fullName}: ${errorText(error)}`),
        );
    }
  }

  private onRuntimeChange(uid: string): void {
    const worker = this.workers.get(uid);
    if (worker) this.enqueue(worker);
    else if (this.podsSynced) void this.adoptOrphan(uid);
  }

  /** Runtime pods without an API object: killed and removed. */
  private async adoptOrphan(uid: string): Promise<void> {
    if (this.workers.has(uid)) return;
    const runtime = await this.reader.read(uid).catch(() => EMPTY_RUNTIME(uid));
    if (this.workers.has(uid)) return;
    const sandbox = runtime.sandboxes[0];
    const info = runtime.containers[0]?.info;
    const pod: Pod = {
      metadata: {
        uid,
        name: sandbox?.podName || info?.podName || '',
        namespace: sandbox?.podNamespace || info?.podNamespace || '',
        deletionGracePeriodSeconds: ORPHAN_GRACE_PERIOD_SECONDS,
      },
      spec: { containers: [] },
    };
    const worker = this.newWorker(uid, pod);
    worker.removed = true;
    this.enqueue(worker);
  }

  private onProbeResult(event: ProbeResultEvent): void {
    if (event.kind === 'liveness') {
      if (event.result === 'failure') this.livenessFailed.add(event.containerId);
      else this.livenessFailed.delete(event.containerId);
    } else if (event.kind === 'startup') {
      if (event.result === 'failure') this.startupFailed.add(event.containerId);
      else this.startupFailed.delete(event.containerId);
    }
    const worker = this.workers.get(event.podUid);
    if (worker) this.enqueue(worker);
  }

  private onProbeAttempt(event: ProbeAttemptEvent): void {
    const pod = this.workers.get(event.podUid)?.pod;
    const container = pod && findContainer(pod, event.containerName);
    if (!pod || !container) return;
    this.record(containerRef(pod, container), event.type, event.reason, event.message);
  }

  // --- the workers ---

  private newWorker(uid: string, pod: Pod): PodWorker {
    const worker: PodWorker = {
      uid,
      pod,
      removed: false,
      admitted: false,
      terminal: false,
      finished: false,
      deleteSent: false,
      running: false,
      pending: false,
      retries: 0,
      mountRetryMs: MOUNT_RETRY_INITIAL_MS,
      done: false,
      firstSeen: Date.now(),
      synced: false,
      updated: false,
      startObserved: false,
    };
    this.workers.set(uid, worker);
    return worker;
  }

  private enqueue(worker: PodWorker, delayMs = 0): void {
    if (this.stopped || worker.done) return;
    if (delayMs > 0) {
      const at = Date.now() + delayMs;
      if (worker.timer && worker.timerAt !== undefined && worker.timerAt <= at) return;
      clearTimeout(worker.timer);
      worker.timerAt = at;
      worker.timer = setTimeout(() => {
        worker.timer = undefined;
        worker.timerAt = undefined;
        this.enqueue(worker);
      }, delayMs);
      return;
    }
    worker.pending = true;
    if (!worker.running) void this.work(worker);
  }

  private async work(worker: PodWorker): Promise<void> {
    worker.running = true;
    try {
      while (worker.pending && !this.stopped) {
        worker.pending = false;
        const type = this.syncType(worker);
        worker.synced = true;
        worker.updated = false;
        const started = performance.now();
        try {
          const wakeAt = await this.sync(worker);
          worker.retries = 0;
          if (wakeAt !== undefined) this.enqueue(worker, Math.max(wakeAt - Date.now(), 1));
        } catch (error) {
          worker.retries++;
          const delay = Math.min(500 * 2 ** (worker.retries - 1), MAX_RETRY_MS);
          this.log(`kubelet: error syncing pod ${describe(worker.pod)}: ${errorText(error)}`);
          this.enqueue(worker, delay);
        }
        this.metrics.podWorkerSync(type, (performance.now() - started) / 1000);
      }
    } finally {
      worker.running = false;
    }
    if (worker.done) {
      this.workers.delete(worker.uid);
      // A static pod of the same name waited for this one to stop (its ports, its mirror).
      const fullName = podFullName(worker.pod);
      for (const other of this.workers.values()) if (podFullName(other.pod) === fullName) this.enqueue(other);
      if (isStaticPod(worker.pod)) this.deleteOrphanedMirrorPods();
    }
  }

  /** The kind of sync due, as the kubelet's pod workers label it. */
  private syncType(worker: PodWorker): PodSyncType {
    if (worker.removed || worker.pod.metadata?.deletionTimestamp) return 'kill';
    if (!worker.synced) return 'create';
    return worker.updated ? 'update' : 'sync';
  }

  /** One sync of a pod; returns when to sync again although nothing changed. */
  private async sync(worker: PodWorker): Promise<number | undefined> {
    if (worker.removed) {
      await this.cleanUp(worker);
      return undefined;
    }
    const pod = worker.pod;
    if (isStaticPod(pod)) {
      // Upstream's pod workers: a pod starts only once another of its full name has stopped.
      const fullName = podFullName(pod);
      for (const other of this.workers.values()) {
        if (other !== worker && !other.done && podFullName(other.pod) === fullName) return undefined;
      }
      await this.reconcileMirrorPod(worker);
    }
    const runtime = await this.reader.read(worker.uid);
    this.pleg.remember(runtime);
    if (pod.metadata?.deletionTimestamp) {
      await this.terminate(worker, runtime);
      return undefined;
    }
    if (worker.terminal || isPodTerminal(pod)) {
      worker.terminal = true;
      await this.finish(worker, runtime);
      return undefined;
    }
    if (!worker.admitted) {
      const rejection = checkPodAdmission(
        pod,
        this.options.node?.(),
        [...this.admittedPods(worker)],
        isStaticPod(pod),
      );
      if (rejection) {
        this.record(podRef(pod), 'Warning', rejection.reason, rejection.message);
        worker.failure = { reason: rejection.reason, message: `Pod was rejected: ${rejection.message}` };
        worker.terminal = true;
        await this.finish(worker, runtime);
        return undefined;
      }
      worker.admitted = true;
    }
    const deadline = this.activeDeadline(pod);
    if (deadline !== undefined && deadline <= Date.now()) {
      this.record(podRef(pod), 'Normal', DEADLINE_EXCEEDED.reason, DEADLINE_EXCEEDED.message);
      worker.failure = DEADLINE_EXCEEDED;
      worker.terminal = true;
      await this.finish(worker, runtime);
      return undefined;
    }

    this.trackProbes(pod, runtime);
    // The status of what the runtime holds now goes out first: a sync may take a while (a grace
    // period, an image pull), and a pod whose containers are all done is terminal already.
    const before = this.setStatus(worker, runtime, false);
    if (before.phase === 'Succeeded' || before.phase === 'Failed') {
      worker.terminal = true;
      await this.finish(worker, runtime);
      return undefined;
    }
    let wakeAt: number | undefined;
    try {
      const result = await this.syncer.syncPod(pod, runtime, () => this.mounts(worker));
      wakeAt = result.wakeAt;
      worker.mountRetryMs = MOUNT_RETRY_INITIAL_MS;
    } catch (error) {
      if (!(error instanceof VolumeSetUpError)) throw error;
      wakeAt = Date.now() + worker.mountRetryMs;
      worker.mountRetryMs = Math.min(worker.mountRetryMs * 2, MOUNT_RETRY_MAX_MS);
    }

    // The runtime as the sync left it, for the status. PLEG still compares against the state
    // before the sync: a container that started and already exited must wake the worker again.
    const after = await this.reader.read(worker.uid);
    this.trackProbes(pod, after);
    const status = this.setStatus(worker, after, false);
    if (status.phase === 'Succeeded' || status.phase === 'Failed') {
      worker.terminal = true;
      this.enqueue(worker);
      return undefined;
    }
    await this.collectGarbage(after);
    const deadlineNow = this.activeDeadline(pod, status);
    return earliest(wakeAt, deadlineNow, Date.now() + RESYNC_MS);
  }

  /** The static pod's mirror in the API exists and is its own; a failure is logged, not fatal. */
  private async reconcileMirrorPod(worker: PodWorker): Promise<void> {
    const before = this.mirrors.mirrorUidOf(worker.pod);
    try {
      await this.mirrors.reconcile(worker.pod);
    } catch (error) {
      this.log(`kubelet: failed reconciling mirror pod of ${describe(worker.pod)}: ${errorText(error)}`);
    }
    if (this.mirrors.mirrorUidOf(worker.pod) !== before) this.statuses.rewrite(worker.uid);
  }

  private async mounts(worker: PodWorker): Promise<ReadonlyMap<string, ContainerMount[]>> {
    const pod = worker.pod;
    try {
      return await this.volumes.setUp(pod);
    } catch (error) {
      if (error instanceof VolumeSetUpError) {
        if (error.reason === 'CreateContainerConfigError' && error.containerName) {
          const container = findContainer(pod, error.containerName);
          this.failuresOf(worker.uid).set(error.containerName, {
            reason: error.reason,
            message: error.message,
          });
          if (container)
            this.record(containerRef(pod, container), 'Warning', 'Failed', `Error: ${error.message}`);
        } else {
          this.record(podRef(pod), 'Warning', 'FailedMount', error.message);
        }
      }
      throw error;
    }
  }

  /** A deleted pod: stop its containers within the grace period, report, then remove the object. */
  private async terminate(worker: PodWorker, runtime: PodRuntime): Promise<void> {
    const pod = worker.pod;
    const uid = worker.uid;
    if (runtime.containers.some((c) => c.state !== 'exited') || runtime.sandboxes.some((s) => s.ready)) {
      await killPod(this.syncer.killDeps, pod, runtime, remainingGracePeriod(pod));
    }
    this.probes.removePod(uid);
    const after = await this.reader.read(uid);
    this.pleg.remember(after);
    this.setStatus(worker, after, true);
    await this.volumes.tearDown(uid);
    await this.statuses.flushed(uid);
    if (worker.deleteSent || worker.pod.metadata?.uid !== uid) return;
    try {
      await this.options.client
        .resource<Pod>(PODS)
        .delete(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', {
          gracePeriodSeconds: 0,
          preconditions: { uid },
        });
      worker.deleteSent = true;
    } catch (error) {
      if (isNotFound(error) || isConflict(error)) worker.deleteSent = true;
      else throw error;
    }
  }

  /**
   * A pod whose containers will not run again: sidecars and sandbox stopped. Its files stay
   * until the pod is deleted (termination messages, volumes the containers wrote).
   */
  private async finish(worker: PodWorker, runtime: PodRuntime): Promise<void> {
    if (!worker.finished) {
      await killPod(this.syncer.killDeps, worker.pod, runtime);
      this.probes.removePod(worker.uid);
      worker.finished = true;
      runtime = await this.reader.read(worker.uid);
      this.pleg.remember(runtime);
    }
    this.setStatus(worker, runtime, true);
  }

  /** A pod gone from the API: everything it left in the runtime and on disk goes too. */
  private async cleanUp(worker: PodWorker): Promise<void> {
    const pod = worker.pod;
    const uid = worker.uid;
    const runtime = await this.reader.read(uid);
    if (runtime.containers.some((c) => c.state !== 'exited') || runtime.sandboxes.some((s) => s.ready)) {
      await killPod(
        this.syncer.killDeps,
        pod,
        runtime,
        remainingGracePeriod(pod) ?? pod.spec?.terminationGracePeriodSeconds,
      );
    }
    this.probes.removePod(uid);
    for (const container of runtime.containers)
      await this.syncer.removeContainer(container.id, container.logPath);
    for (const sandbox of runtime.sandboxes) {
      await this.cri.stopPodSandbox(sandbox.id).catch(() => undefined);
      await this.cri.removePodSandbox(sandbox.id);
    }
    await this.volumes.tearDown(uid);
    await this.files.removePodFiles(uid);
    await removePodCgroup(pod).catch((error: unknown) =>
      this.log(`kubelet: failed removing the cgroup of pod ${describe(pod)}: ${errorText(error)}`),
    );
    if (pod.metadata?.name) await rm(podLogDirectory(pod, this.logRoot), { recursive: true, force: true });
    this.statuses.forget(uid);
    this.startFailures.delete(uid);
    this.images.forgetPod(uid);
    this.containerBackoff.forgetPrefix(`${pod.metadata?.name}_${pod.metadata?.namespace}_${uid}_`);
    for (const container of runtime.containers) this.forgetContainer(container.id);
    this.pleg.remember(EMPTY_RUNTIME(uid));
    worker.done = true;
  }

  // --- helpers ---

  /** The other pods admitted and still active (their requests and host ports are in use). */
  private *admittedPods(except: PodWorker): Iterable<Pod> {
    for (const worker of this.workers.values()) {
      if (worker === except || !worker.admitted || worker.terminal || worker.removed || worker.done) continue;
      yield worker.pod;
    }
  }

  private setStatus(worker: PodWorker, runtime: PodRuntime, podIsTerminal: boolean): PodStatus {
    const pod = worker.pod;
    const previous = this.statuses.get(worker.uid);
    const status = generatePodStatus({
      pod,
      runtime,
      previous,
      startFailures: this.failuresOf(worker.uid),
      probes: this.probes,
      hostIPs: [this.options.nodeIP],
      podIPs: this.syncer.podIPs(pod, runtime),
      sandboxReady: !podSandboxChanged(pod, runtime).changed,
      podIsTerminal,
      failure: worker.failure,
      now: new Date(),
    });
    // Counted once, when the kubelet turns the pod Running (not when it adopts a running pod).
    if (!worker.startObserved && status.phase === 'Running') {
      worker.startObserved = true;
      if ((previous ?? pod.status)?.phase !== 'Running') {
        this.metrics.podStarted((Date.now() - worker.firstSeen) / 1000);
      }
    }
    this.statuses.set(pod, status);
    return status;
  }

  /** Probes follow the running containers: adopted ones are probed, stopped ones not any more. */
  private trackProbes(pod: Pod, runtime: PodRuntime): void {
    const podIP = this.syncer.podIPs(pod, runtime)[0] ?? '';
    for (const container of runtime.containers) {
      if (container.state === 'running') {
        const spec = findContainer(pod, container.name);
        if (spec && !this.probed.has(container.id)) this.watchContainer(pod, spec, container.id, podIP);
      } else if (this.probed.has(container.id)) {
        this.probes.removeContainer(container.id);
        this.forgetContainer(container.id);
      }
    }
  }

  private watchContainer(pod: Pod, container: Container, containerId: string, podIP: string): void {
    this.probed.add(containerId);
    this.probes.addContainer(pod, container, containerId, podIP);
  }

  private forgetContainer(id: string): void {
    this.probed.delete(id);
    this.livenessFailed.delete(id);
    this.startupFailed.delete(id);
  }

  /** Dead containers beyond the newest of each name, and dead sandboxes left empty, are removed. */
  private async collectGarbage(runtime: PodRuntime): Promise<void> {
    const deadSeen = new Map<string, number>();
    const removed = new Set<string>();
    for (const container of runtime.containers) {
      if (container.state !== 'exited') continue;
      const count = (deadSeen.get(container.name) ?? 0) + 1;
      deadSeen.set(container.name, count);
      if (count > 1) {
        await this.syncer.removeContainer(container.id, container.logPath);
        removed.add(container.id);
      }
    }
    for (const sandbox of runtime.sandboxes.slice(1)) {
      if (sandbox.ready) continue;
      if (runtime.containers.some((c) => c.sandboxId === sandbox.id && !removed.has(c.id))) continue;
      await this.cri.removePodSandbox(sandbox.id).catch(() => undefined);
    }
  }

  private failuresOf(uid: string): Map<string, StartFailure> {
    let failures = this.startFailures.get(uid);
    if (!failures) {
      failures = new Map();
      this.startFailures.set(uid, failures);
    }
    return failures;
  }

  /** When the pod's activeDeadlineSeconds run out (ms), counted from its start time. */
  private activeDeadline(pod: Pod, status?: PodStatus): number | undefined {
    const seconds = pod.spec?.activeDeadlineSeconds;
    const start =
      status?.startTime ?? this.statuses.get(pod.metadata?.uid ?? '')?.startTime ?? pod.status?.startTime;
    if (seconds === undefined || !start) return undefined;
    return Date.parse(start) + seconds * 1000;
  }

  private podIPOf(pod: Pod): string {
    if (pod.spec?.hostNetwork) return this.options.nodeIP;
    const status = this.statuses.get(pod.metadata?.uid ?? '') ?? pod.status;
    return status?.podIP ?? '';
  }

  private memoryCapacity(): number {
    const memory = this.options.node?.()?.status?.capacity?.memory;
    const parsed = memory === undefined ? undefined : Quantity.tryFromJson(memory);
    return parsed ? Number(parsed.value()) : totalmem();
  }
}

/** A pod update the kubelet acts on: not its own status writes (checkAndUpdatePod). */
function needsSync(old: Pod, pod: Pod): boolean {
  const a = old.metadata ?? {};
  const b = pod.metadata ?? {};
  if (a.uid !== b.uid || a.deletionTimestamp !== b.deletionTimestamp) return true;
  if (a.deletionGracePeriodSeconds !== b.deletionGracePeriodSeconds) return true;
  if (JSON.stringify(old.spec) !== JSON.stringify(pod.spec)) return true;
  if (JSON.stringify(a.labels) !== JSON.stringify(b.labels)) return true;
  if (JSON.stringify(a.annotations) !== JSON.stringify(b.annotations)) return true;
  if (old.status?.phase !== pod.status?.phase) return true;
  // Readiness gates: conditions written by others decide Ready.
  if ((pod.spec?.readinessGates?.length ?? 0) > 0) {
    return JSON.stringify(old.status?.conditions) !== JSON.stringify(pod.status?.conditions);
  }
  return false;
}

function findContainer(pod: Pod, name: string): Container | undefined {
  return (
    pod.spec?.containers?.find((c) => c.name === name) ??
    pod.spec?.initContainers?.find((c) => c.name === name)
  );
}

function describe(pod: Pod): string {
  const meta = pod.metadata ?? {};
  return `${meta.namespace ?? ''}/${meta.name ?? ''} (${meta.uid ?? ''})`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function earliest(...times: (number | undefined)[]): number | undefined {
  const defined = times.filter((time): time is number => time !== undefined);
  return defined.length > 0 ? Math.min(...defined) : undefined;
}
