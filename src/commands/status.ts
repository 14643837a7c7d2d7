import { Args, Command, Flags } from '@oclif/core';
import { chooseCluster } from '../cluster/current-cluster.js';
import { errorMessage } from '../cluster/errors.js';
import { type ClusterStatus, clusterStatus } from '../cluster/status.js';

export default class Status extends Command {
  static override description = "Show whether a cluster's control plane runs and its API server is ready";

  static override examples = ['<%= config.bin %> status', '<%= config.bin %> status dev -o json'];

  static override args = {
    name: Args.string({
      description: "cluster name (default: the current kubeconfig context's tkube cluster, else tkube)",
    }),
  };

  static override flags = {
    name: Flags.string({ description: 'cluster name, as kind spells it (or give NAME)' }),
    output: Flags.string({ char: 'o', description: 'output format', options: ['json'] }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Status);
    let status: ClusterStatus;
    try {
      const chosen = await chooseCluster(args.name, flags.name);
      if (chosen.note && flags.output !== 'json') this.logToStderr(chosen.note);
      status = await clusterStatus(chosen.name);
    } catch (error) {
      this.logToStderr(`Error: ${errorMessage(error)}`);
      this.exit(1);
    }
    if (flags.output === 'json') {
      this.log(JSON.stringify(status, null, 2));
      return;
    }
    const controlPlane = status.controlPlane.running ? `running (pid ${status.controlPlane.pid})` : 'stopped';
    const apiServer = `${status.apiServer.url} (${status.apiServer.ready ? 'ready' : `not ready: ${status.apiServer.detail}`})`;
    const rows: [string, string][] = [
      ['Cluster', status.name],
      ['Status', status.state],
      ['Control plane', controlPlane],
      ['API server', apiServer],
      ['Nodes', nodeSummary(status)],
      ['Context', `${status.context} (${status.kubeconfigPath})`],
      ['Kubernetes', status.kubernetesVersion],
      ['Logs', status.logFile],
    ];
    const width = Math.max(...rows.map(([label]) => label.length)) + 2;
    for (const [label, value] of rows) this.log(`${`${label}:`.padEnd(width)}${value}`);
  }
}

/** `3 (3 Ready: c-node-0, c-node-1, c-node-2)`, or the count alone when the API is down. */
function nodeSummary(status: ClusterStatus): string {
  if (status.nodeStatus.length === 0) return String(status.nodes);
  const ready = status.nodeStatus.filter((node) => node.ready).length;
  const names = status.nodeStatus
    .map((node) => (node.ready ? node.name : `${node.name} (NotReady)`))
    .join(', ');
  return `${status.nodeStatus.length} (${ready} Ready: ${names})`;
}
