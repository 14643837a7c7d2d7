// The controllers (with any fake nodes) and the scheduler each on a worker thread: upstream,
// kube-controller-manager, kube-scheduler and kubelets are processes of their own, and here they
// get cores of their own. The apiserver's thread then spends nothing on their informers (decoding
// every watch event, the garbage collector's graph, scheduling, the fake kubelets' pods), only on
// serving them, and a busy controller manager does not hold up scheduling. They reach the
// apiserver over the loopback socket. A thread runs this program's own entry point, which sees
// the thread's data and calls runComponentThread instead of starting a control plane.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { ClusterSettings } from '../controllers/context.js';
import type { FakeNodesOptions } from '../providers/fake/index.js';
import { type ComponentName, type Components, startComponents } from './components.js';
import type { LoopbackAccess } from './loopback.js';
import { SocketLoopbackClients } from './socket-loopback.js';

/** A thread that dies unasked is started again after this long, as a kubelet restarts a crashed pod. */
const RESTART_DELAY_MS = 1_000;
/** How long a stop waits for the thread to finish before ending it. */
const STOP_TIMEOUT_MS = 10_000;
const STOP = 'stop';
/** What the thread tells the control plane once its fake nodes (if any) are Ready. */
const READY = 'ready';

export interface ComponentThreadData {
  readonly tkubeComponentThread: true;
  readonly component: ComponentName;
  readonly access: LoopbackAccess;
  readonly settings: ClusterSettings;
  /** Fake nodes run beside the controller manager. */
  readonly fakeNodes?: FakeNodesOptions;
}

/** This thread's data if it is a component thread (and the entry point should run it). */
export function componentThreadData(): ComponentThreadData | undefined {
  if (isMainThread) return undefined;
  const data = workerData as Partial<ComponentThreadData> | null;
  return data?.tkubeComponentThread === true ? (data as ComponentThreadData) : undefined;
}

/** The component thread's body: runs the components until the control plane says stop. */
export function runComponentThread(data: ComponentThreadData): void {
  const clients = new SocketLoopbackClients(data.access);
  const components = startComponents(clients, data.settings, [data.component], data.fakeNodes);
  components.ready.then(
    () => parentPort!.postMessage(READY),
    (error: unknown) => console.error(`fake nodes failed to start: ${String(error)}`),
  );
  parentPort!.on('message', (message: unknown) => {
    if (message !== STOP) return;
    parentPort!.removeAllListeners('message');
    components
      .stop()
      .then(() => clients.close())
      .catch((error: unknown) => console.error(`component thread: stop failed: ${String(error)}`))
      .finally(() => process.exit(0));
  });
}

/**
 * Starts a thread for the scheduler and one for the controller manager with any fake nodes;
 * `ready` settles once those are Ready.
 */
export function startComponentThreads(
  entry: string,
  access: LoopbackAccess,
  settings: ClusterSettings,
  fakeNodes?: FakeNodesOptions,
): Components {
  const scheduler = startComponentThread(entry, 'scheduler', access, settings);
  const controllerManager = startComponentThread(entry, 'controller-manager', access, settings, fakeNodes);
  return {
    ready: controllerManager.ready,
    async stop() {
      await scheduler.stop();
      await controllerManager.stop();
    },
  };
}

/**
 * Starts the component thread from `entry` (the running program's entry point). Started once the
 * apiserver is ready, as kube-controller-manager waits for its /healthz: loading the program
 * alongside the apiserver's bootstrap slowed that on two cores.
 */
function startComponentThread(
  entry: string,
  component: ComponentName,
  access: LoopbackAccess,
  settings: ClusterSettings,
  fakeNodes?: FakeNodesOptions,
): Components {
  const data: ComponentThreadData = { tkubeComponentThread: true, component, access, settings, fakeNodes };
  let markReady: () => void = () => {};
  // Without fake nodes nothing waits for the thread: /readyz does not wait for upstream's
  // controller manager either.
  const ready = fakeNodes?.count
    ? new Promise<void>((resolve) => {
        markReady = resolve;
      })
    : Promise.resolve();
  let stopping = false;
  let worker: Worker;
  let restart: NodeJS.Timeout | undefined;
  const launch = (): void => {
    worker = new Worker(entry, { workerData: data, name: `tkube-${component}` });
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
    });
  };
  launch();
  return {
    ready,
    async stop() {
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
    },
  };
}
