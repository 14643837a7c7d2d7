// The controllers (with any fake nodes) and the scheduler each on a worker thread: upstream,
// kube-controller-manager, kube-scheduler and kubelets are processes of their own, and here they
// get cores of their own. The apiserver's thread then spends nothing on their informers (decoding
// every watch event, the garbage collector's graph, scheduling, the fake kubelets' pods), only on
// serving them, and a busy controller manager does not hold up scheduling. They reach the
// apiserver over the loopback socket. A thread runs this program's own entry point, which sees
// the thread's data and calls runComponentThread instead of starting a control plane.
import { availableParallelism } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { workerResourceLimits } from '../api/worker-threads.js';
import type { ClusterSettings } from '../controllers/context.js';
import type { FakeNodesOptions } from '../providers/fake/index.js';
import type { ComponentName, Components } from './components.js';
import type { LeaderElectionSettings } from './leader-elected.js';
import type { LoopbackAccess, LoopbackClients } from './loopback.js';
import { SocketLoopbackClients } from './socket-loopback.js';

/** A thread that dies unasked is started again after this long, as a kubelet restarts a crashed pod. */
const RESTART_DELAY_MS = 1_000;
/** How long a stop waits for the thread to finish before ending it. */
const STOP_TIMEOUT_MS = 10_000;
const STOP = 'stop';
/** Where the components run: `separate` threads, one `shared` thread (the default on ≤ 2 cores), or `none` (the apiserver's). */
export const COMPONENT_THREADS_ENV = 'TKUBE_COMPONENT_THREADS';
export type ComponentThreadLayout = 'separate' | 'shared' | 'none';
/** What the thread tells the control plane once its fake nodes (if any) are Ready. */
const READY = 'ready';

/** The control plane's word to begin, once the apiserver serves: where its loopback socket is. */
interface StartMessage {
  readonly start: LoopbackAccess;
}

function isStartMessage(message: unknown): message is StartMessage {
  return typeof message === 'object' && message !== null && 'start' in message;
}

export interface ComponentThreadData {
  readonly tkubeComponentThread: true;
  readonly components: readonly ComponentName[];
  readonly settings: ClusterSettings;
  /** Fake nodes run beside the controller manager. */
  readonly fakeNodes?: FakeNodesOptions;
  /** Set with several control planes: the components act only while holding their Leases. */
  readonly leaderElection?: LeaderElectionSettings;
}

/**
 * Up to this many cores the components share one thread by default: on two cores, two threads of
 * their own buy no measured throughput (the apiserver's thread is the busy one) and cost an
 * isolate holding the whole program (about 6 MiB resident with three idle nodes).
 */
export const SHARED_THREAD_MAX_CORES = 2;

/**
 * The layout asked for in the environment, else the one for this many cores. One thread, or
 * none, saves the memory of an isolate per thread, at the cost of the components sharing a core.
 */
export function componentThreadLayoutFrom(
  env: NodeJS.ProcessEnv,
  cores: number = availableParallelism(),
): ComponentThreadLayout {
  const value = env[COMPONENT_THREADS_ENV] ?? '';
  if (value === '') return cores <= SHARED_THREAD_MAX_CORES ? 'shared' : 'separate';
  if (value === 'separate' || value === 'shared' || value === 'none') return value;
  throw new Error(
    `${COMPONENT_THREADS_ENV}=${JSON.stringify(value)}: must be "separate", "shared" or "none"`,
  );
}

/** The programs a component thread starts from: any components, or the scheduler alone (smaller). */
export interface ComponentThreadEntries {
  readonly components: string;
  readonly scheduler: string;
}

/** This thread's data if it is a component thread (and the entry point should run it). */
export function componentThreadData(): ComponentThreadData | undefined {
  if (isMainThread) return undefined;
  const data = workerData as Partial<ComponentThreadData> | null;
  return data?.tkubeComponentThread === true ? (data as ComponentThreadData) : undefined;
}

/** Starts the components a thread was given; each entry point passes only the code it bundles. */
export type StartComponents = (
  clients: LoopbackClients,
  settings: ClusterSettings,
  names: readonly ComponentName[],
  fakeNodes?: FakeNodesOptions,
  leaderElection?: LeaderElectionSettings,
) => Components;

/**
 * The component thread's body: waits for the control plane's word (the thread is started while
 * the apiserver boots, so loading this program overlaps that), then runs the components until
 * the control plane says stop.
 */
export function runComponentThread(data: ComponentThreadData, start: StartComponents): void {
  let running: { components: Components; clients: SocketLoopbackClients } | undefined;
  parentPort!.on('message', (message: unknown) => {
    if (isStartMessage(message)) {
      if (running) return;
      const clients = new SocketLoopbackClients(message.start);
      const components = start(clients, data.settings, data.components, data.fakeNodes, data.leaderElection);
      running = { components, clients };
      components.ready.then(
        () => parentPort!.postMessage(READY),
        (error: unknown) => console.error(`fake nodes failed to start: ${String(error)}`),
      );
      return;
    }
    if (message !== STOP) return;
    parentPort!.removeAllListeners('message');
    if (!running) process.exit(0);
    const { components, clients } = running;
    components
      .stop()
      .then(() => clients.close())
      .catch((error: unknown) => console.error(`component thread: stop failed: ${String(error)}`))
      .finally(() => process.exit(0));
  });
}

/** Component threads loading their program while the apiserver boots, not yet running anything. */
export interface PreparedComponentThreads {
  /** Lets them run, on the apiserver's loopback socket; `ready` settles once any fake nodes are Ready. */
  start(access: LoopbackAccess): Components;
  /** Ends them unstarted, when the control plane fails to start. */
  discard(): Promise<void>;
}

/**
 * Starts a thread for the scheduler and one for the controller manager with any fake nodes (or,
 * `shared`, one thread for both). They load their program at once, beside the apiserver's
 * bootstrap (the second core's work: on two cores the default accounts, which `tkube up` waits
 * for, came ~250 ms sooner), and begin with `start`, as kube-controller-manager waits for the
 * apiserver's /healthz.
 */
export function prepareComponentThreads(
  entries: ComponentThreadEntries,
  layout: Exclude<ComponentThreadLayout, 'none'>,
  settings: ClusterSettings,
  fakeNodes?: FakeNodesOptions,
  leaderElection?: LeaderElectionSettings,
): PreparedComponentThreads {
  if (layout === 'shared')
    return prepareComponentThread(
      entries.components,
      ['controller-manager', 'scheduler'],
      settings,
      fakeNodes,
      leaderElection,
    );
  const scheduler = prepareComponentThread(
    entries.scheduler,
    ['scheduler'],
    settings,
    undefined,
    leaderElection,
  );
  const controllerManager = prepareComponentThread(
    entries.components,
    ['controller-manager'],
    settings,
    fakeNodes,
    leaderElection,
  );
  return {
    start(access) {
      const started = [scheduler.start(access), controllerManager.start(access)] as const;
      return {
        ready: started[1].ready,
        async stop() {
          await started[0].stop();
          await started[1].stop();
        },
      };
    },
    async discard() {
      await Promise.all([scheduler.discard(), controllerManager.discard()]);
    },
  };
}

/** One component thread from `entry` (the running program's entry point), started as prepareComponentThreads says. */
function prepareComponentThread(
  entry: string,
  components: readonly ComponentName[],
  settings: ClusterSettings,
  fakeNodes?: FakeNodesOptions,
  leaderElection?: LeaderElectionSettings,
): PreparedComponentThreads {
  const data: ComponentThreadData = {
    tkubeComponentThread: true,
    components,
    settings,
    fakeNodes,
    ...(leaderElection && { leaderElection }),
  };
  const component = components.join('+');
  let markReady: () => void = () => {};
  // Without fake nodes nothing waits for the thread: /readyz does not wait for upstream's
  // controller manager either. Nor under leader election: another control plane may lead.
  const ready =
    fakeNodes?.count && !leaderElection
      ? new Promise<void>((resolve) => {
          markReady = resolve;
        })
      : Promise.resolve();
  let access: LoopbackAccess | undefined;
  let stopping = false;
  let worker: Worker;
  let restart: NodeJS.Timeout | undefined;
  const launch = (): void => {
    worker = new Worker(entry, {
      workerData: data,
      name: `tkube-${component}`,
      resourceLimits: workerResourceLimits(),
    });
    // An unstarted thread does not keep the process alive: a control plane that fails to start exits.
    if (access) worker.postMessage({ start: access } satisfies StartMessage);
    else worker.unref();
    worker.on('message', (message: unknown) => {
      if (message === READY) markReady();
    });
    worker.on('error', (error) =>
      console.error(`${component} thread failed: ${error.stack ?? String(error)}`),
    );
    worker.on('exit', (code) => {
      if (stopping) return;
      console.error(`${component} thread exited (code ${code}); starting it again in ${RESTART_DELAY_MS} ms`);
      restart = setTimeout(launch, RESTART_DELAY_MS);
      if (!access) restart.unref();
    });
  };
  launch();
  const stop = async (): Promise<void> => {
    stopping = true;
    markReady();
    clearTimeout(restart);
    const current = worker;
    if (current.threadId < 0) return;
    const exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
    current.postMessage(STOP);
    const timer = setTimeout(() => void current.terminate(), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  return {
    start(loopback) {
      if (access) throw new Error(`${component} thread was started already`);
      access = loopback;
      worker.ref();
      worker.postMessage({ start: loopback } satisfies StartMessage);
      return { ready, stop };
    },
    discard: stop,
  };
}
