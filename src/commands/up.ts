import { Args, Command, Flags } from '@oclif/core';
import { readClusterConfig } from '../cluster/config/cluster-config.js';
import { ClusterError, errorMessage } from '../cluster/errors.js';
import { clusterName, DEFAULT_CLUSTER_NAME } from '../cluster/name.js';
import { up, usageLines } from '../cluster/up.js';
import { MAX_FAKE_NODES } from '../providers/fake/pod-network-size.js';

export default class Up extends Command {
  static override description = 'Create a cluster and make it the current kubectl context';

  static override examples = [
    '<%= config.bin %> up',
    '<%= config.bin %> up dev --nodes 3',
    '<%= config.bin %> up --nodes 0',
    '<%= config.bin %> up ci --nodes 0 --fake-nodes 3',
    '<%= config.bin %> up dev --nodes 0 --api-port 6443',
    '<%= config.bin %> up ci --nodes 0 --kubeconfig ./kubeconfig',
    '<%= config.bin %> up dev --registry',
    '<%= config.bin %> up dev --registry-name tkube-registry --registry-port 5001',
  ];

  static override args = {
    name: Args.string({ description: `cluster name (a DNS-1123 label; default ${DEFAULT_CLUSTER_NAME})` }),
  };

  static override flags = {
    name: Flags.string({ description: 'cluster name, as kind spells it (or give NAME)' }),
    nodes: Flags.integer({
      description:
        "number of node containers in Docker (default 1, or the config file's; 0: the control plane alone, no Docker)",
    }),
    config: Flags.string({
      description:
        'cluster config file (tkube.dev/v1alpha1 Cluster, or kind.x-k8s.io/v1alpha4 Cluster as it is; YAML or JSON; docs/cluster-config.schema.json)',
    }),
    'fake-nodes': Flags.integer({
      description: 'number of simulated nodes (no containers: their pods only report Running)',
      default: 0,
      min: 0,
      max: MAX_FAKE_NODES,
    }),
    image: Flags.string({ description: "node image to use instead of tkube's own (built on demand)" }),
    wait: Flags.string({
      description: 'how long to wait for the nodes to be Ready, e.g. 90s or 3m',
      default: '120s',
    }),
    retain: Flags.boolean({ description: 'keep what was created if creation fails (for debugging)' }),
    quiet: Flags.boolean({ char: 'q', description: 'print nothing but errors' }),
    output: Flags.string({ char: 'o', description: 'print the created cluster as JSON', options: ['json'] }),
    'api-port': Flags.integer({
      description: "the API server's port on 127.0.0.1 (default: a free port)",
      min: 1,
      max: 65535,
    }),
    registry: Flags.boolean({
      description:
        'start a local registry for this cluster: push to localhost:5001, pods pull from it (removed by down)',
    }),
    'registry-name': Flags.string({
      description: 'a local registry shared by clusters: this container, reused if it exists, kept by down',
    }),
    'registry-port': Flags.integer({
      description: "the local registry's port on 127.0.0.1 (default 5001)",
      min: 1,
      max: 65535,
    }),
    kubeconfig: Flags.string({
      description: 'kubeconfig file to write the context to (default: $KUBECONFIG or ~/.kube/config)',
    }),
    'datastore-endpoint': Flags.string({
      description:
        'where the cluster state lives: sqlite://PATH (default: in the cluster directory) or postgres://USER:PASSWORD@HOST:PORT/DATABASE',
    }),
    'control-planes': Flags.integer({
      description:
        'control-plane processes (apiserver, controller manager and scheduler under leader election) behind one endpoint; more than 1 needs a shared --datastore-endpoint',
      min: 1,
    }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Up);
    const controller = new AbortController();
    const interrupt = () => controller.abort();
    process.once('SIGINT', interrupt);
    process.once('SIGTERM', interrupt);
    try {
      const config = flags.config ? await readClusterConfig(flags.config) : undefined;
      for (const warning of config?.warnings ?? []) this.logToStderr(`Warning: ${flags.config}: ${warning}`);
      const result = await up({
        name: clusterName(args.name ?? (flags.name ? undefined : config?.name), flags.name),
        nodes: flags.nodes ?? (config ? undefined : 1),
        config,
        fakeNodes: flags['fake-nodes'],
        image: flags.image,
        ...((flags.registry ||
          flags['registry-name'] !== undefined ||
          flags['registry-port'] !== undefined) && {
          registry: {
            ...config?.registry,
            ...(flags['registry-name'] !== undefined && { name: flags['registry-name'] }),
            ...(flags['registry-port'] !== undefined && { port: flags['registry-port'] }),
          },
        }),
        nodesReadyTimeoutMs: parseDuration(flags.wait),
        retain: flags.retain,
        apiPort: flags['api-port'],
        kubeconfigPath: flags.kubeconfig,
        datastoreEndpoint: flags['datastore-endpoint'],
        ...(flags['control-planes'] !== undefined && { controlPlanes: flags['control-planes'] }),
        signal: controller.signal,
        ...(flags.quiet && { progress: 'silent' as const }),
      });
      if (flags.output === 'json') {
        this.log(JSON.stringify({ ...result.record, context: result.context }, null, 2));
      } else if (!flags.quiet) {
        for (const line of usageLines(result, flags.kubeconfig !== undefined)) this.log(line);
      }
    } catch (error) {
      // One line (oclif's this.error would wrap it), no stack trace.
      this.logToStderr(`Error: ${errorMessage(error)}`);
      this.exit(controller.signal.aborted ? 130 : 1);
    } finally {
      process.off('SIGINT', interrupt);
      process.off('SIGTERM', interrupt);
    }
  }
}

/** `90s`, `3m`, `500ms` → milliseconds; a bare number is seconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new ClusterError(`--wait ${text}: not a duration`, 'use e.g. 90s or 3m');
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] ?? 's']!;
  return Number(match[1]) * unit;
}
