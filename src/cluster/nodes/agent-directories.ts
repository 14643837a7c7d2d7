// Where a node's agent files live on the host: under the cluster's state directory, one
// directory per node, bind-mounted into the node's container (see agent-install.ts). They go
// with the node (`tkube node remove`) or with the cluster's state directory (`tkube down`).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

/** `config` is the node's /etc/tkube, `program` its /opt/tkube/agent, `run` its /run/tkube. */
export interface AgentDirectories {
  readonly config: string;
  readonly program: string;
  readonly run: string;
}

function nodeDirectory(clusterDir: string, node: string): string {
  return join(clusterDir, 'nodes', node);
}

export function agentDirectories(clusterDir: string, node: string): AgentDirectories {
  const base = nodeDirectory(clusterDir, node);
  return { config: join(base, 'etc'), program: join(base, 'agent'), run: join(base, 'run') };
}

export function removeAgentDirectories(clusterDir: string, node: string): Promise<void> {
  return rm(nodeDirectory(clusterDir, node), { recursive: true, force: true });
}
