// Running a control plane in the foreground until a signal: shared by the lean entry point
// (main.ts) and the hidden `tkube controlplane` command.
import { parseArgs } from 'node:util';
import { MAX_FAKE_NODES } from '../providers/fake/pod-network-size.js';
import { type DatastoreEndpoint, parseDatastoreEndpoint } from '../storage/index.js';
import {
  COMPONENT_FLAG_OPTIONS,
  type ComponentFlagSettings,
  componentFlagArgs,
  componentFlagSettingsFrom,
} from './component-flags.js';
import type { ComponentThreadEntries } from './component-thread.js';
import { startControlPlane } from './control-plane.js';
import { collectGarbageWhenSettled } from './settled-gc.js';

export interface ControlPlaneArgs {
  readonly stateDir: string;
  readonly apiPort: number;
  readonly bindAddresses?: readonly string[];
  /** Simulated nodes to run in the process (`--fake-nodes N`). */
  readonly fakeNodes?: number;
  /** The pod network node IPAM allocates from (`--cluster-cidr`, default 10.244.0.0/16). */
  readonly clusterCidr?: string;
  /** The LoadBalancer services' addresses (`--load-balancer-ip-range FIRST-LAST`). */
  readonly loadBalancerIpRange?: string;
  /** From $TKUBE_DATASTORE_ENDPOINT (the environment, not argv: the URL may hold a password). */
  readonly datastore?: DatastoreEndpoint;
  /** `--control-plane-ports P1,P2,...`: run that many control planes behind a balancer on apiPort. */
  readonly controlPlanePorts?: readonly number[];
  /** `--leader-elect-identity`: one of several control planes, its components under leader election. */
  readonly leaderElectIdentity?: string;
  /** `--advertise-port`: the port the `kubernetes` Service's endpoints name. */
  readonly advertisePort?: number;
  /** Upstream's controller-manager and metrics-server flags (`--horizontal-pod-autoscaler-sync-period 5s` …). */
  readonly componentFlags?: ComponentFlagSettings;
}

/** The variable `tkube up`/`start` pass the datastore endpoint in. */
export const DATASTORE_ENDPOINT_ENV = 'TKUBE_DATASTORE_ENDPOINT';

export interface RunOptions {
  /** The entry point to start the component thread from (see component-thread.ts); none runs them on this thread. */
  readonly componentThreadEntries?: ComponentThreadEntries;
  /** One thread for both components instead of one each (see component-thread.ts). */
  readonly componentThreadLayout?: 'separate' | 'shared';
}

/** Runs until SIGTERM or SIGINT, then shuts down gracefully. */
export async function runControlPlane(
  args: ControlPlaneArgs,
  log: (line: string) => void,
  options: RunOptions = {},
): Promise<void> {
  const started = Date.now();
  // The controller-manager flags are named as the settings they set (component-flags' test holds them so).
  const { metricResolutionMs, ...controllerFlags } = args.componentFlags ?? {};
  const running = await startControlPlane({
    stateDir: args.stateDir,
    apiPort: args.apiPort,
    bindAddresses: args.bindAddresses,
    fakeNodes: args.fakeNodes ? { count: args.fakeNodes } : undefined,
    controllerSettings: {
      ...(args.clusterCidr && { clusterCidr: args.clusterCidr }),
      ...(args.loadBalancerIpRange && { loadBalancerIpRange: args.loadBalancerIpRange }),
      ...controllerFlags,
    },
    ...(metricResolutionMs !== undefined && { metricResolutionMs }),
    componentThreadEntries: options.componentThreadEntries,
    componentThreadLayout: options.componentThreadLayout,
    datastore: args.datastore,
    ...(args.leaderElectIdentity && { leaderElection: { identity: args.leaderElectIdentity } }),
    ...(args.advertisePort !== undefined && { advertisePort: args.advertisePort }),
  });
  log(`control plane serving on port ${running.port} (ready in ${Date.now() - started} ms)`);
  const settledGc = collectGarbageWhenSettled();
  await new Promise<void>((resolve) => {
    const stop = (signal: string): void => {
      settledGc?.cancel();
      log(`received ${signal}, shutting down`);
      running.stop().then(resolve, (error: unknown) => {
        console.error(error);
        resolve();
      });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  log('control plane stopped');
}

export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv = process.env): ControlPlaneArgs {
  const { values } = parseArgs({
    args: argv,
    options: {
      'state-dir': { type: 'string' },
      'api-port': { type: 'string' },
      'bind-address': { type: 'string', multiple: true },
      'fake-nodes': { type: 'string' },
      'cluster-cidr': { type: 'string' },
      'load-balancer-ip-range': { type: 'string' },
      'control-plane-ports': { type: 'string' },
      'leader-elect-identity': { type: 'string' },
      'advertise-port': { type: 'string' },
      ...COMPONENT_FLAG_OPTIONS,
    },
    strict: true,
  });
  const apiPort = Number(values['api-port']);
  const fakeNodes = Number(values['fake-nodes'] ?? 0);
  const controlPlanePorts = values['control-plane-ports']?.split(',').map(Number);
  const advertisePort = values['advertise-port'] === undefined ? undefined : Number(values['advertise-port']);
  if (
    controlPlanePorts?.some((port) => !isPort(port)) ||
    (advertisePort !== undefined && !isPort(advertisePort))
  ) {
    throw new Error('--control-plane-ports and --advertise-port take port numbers');
  }
  if (
    !values['state-dir'] ||
    !Number.isInteger(apiPort) ||
    apiPort < 0 ||
    apiPort > 65535 ||
    !Number.isInteger(fakeNodes) ||
    fakeNodes < 0 ||
    fakeNodes > MAX_FAKE_NODES
  ) {
    throw new Error(
      'usage: main.js --state-dir DIR --api-port PORT [--bind-address IP]... [--fake-nodes N] [--cluster-cidr CIDR] [--load-balancer-ip-range FIRST-LAST] [--control-plane-ports P1,P2,...] [--horizontal-pod-autoscaler-sync-period D] [--horizontal-pod-autoscaler-downscale-stabilization D] [--node-monitor-grace-period D] [--metric-resolution D]',
    );
  }
  const componentFlags = componentFlagSettingsFrom(values);
  return {
    stateDir: values['state-dir'],
    apiPort,
    bindAddresses: values['bind-address'],
    fakeNodes,
    clusterCidr: values['cluster-cidr'],
    loadBalancerIpRange: values['load-balancer-ip-range'],
    ...(controlPlanePorts && { controlPlanePorts }),
    ...(values['leader-elect-identity'] && { leaderElectIdentity: values['leader-elect-identity'] }),
    ...(advertisePort !== undefined && { advertisePort }),
    ...(componentFlags && { componentFlags }),
    ...(env[DATASTORE_ENDPOINT_ENV] && { datastore: parseDatastoreEndpoint(env[DATASTORE_ENDPOINT_ENV]) }),
  };
}

function isPort(port: number): boolean {
  return Number.isInteger(port) && port > 0 && port <= 65535;
}

/** The flags a control plane started by runControlPlaneReplicas gets from the one that started it. */
export function replicaArgs(args: ControlPlaneArgs): string[] {
  return [
    ...(args.bindAddresses ?? []).flatMap((address) => ['--bind-address', address]),
    ...(args.fakeNodes ? ['--fake-nodes', String(args.fakeNodes)] : []),
    ...(args.clusterCidr ? ['--cluster-cidr', args.clusterCidr] : []),
    ...(args.loadBalancerIpRange ? ['--load-balancer-ip-range', args.loadBalancerIpRange] : []),
    ...componentFlagArgs(args.componentFlags),
  ];
}
