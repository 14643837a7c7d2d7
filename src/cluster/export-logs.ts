// `tkube export logs`: everything needed to debug a cluster after the fact, as CI artifacts — the
// control plane's log and state record, and per node `docker inspect`, containerd's and the
// agent's logs and every file under the node's /var/log (pod logs included).
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ClusterError, errorMessage } from './errors.js';
import { assertValidClusterName } from './name.js';
import { dockerProvider } from './nodes/node-provider.js';
import { clusterPaths, type Environment, loadClusterRecord } from './state.js';

export interface ExportedLogs {
  dir: string;
  files: string[];
}

export async function exportLogs(
  cluster: string,
  dir: string | undefined,
  env: Environment = process.env,
): Promise<ExportedLogs> {
  assertValidClusterName(cluster);
  const paths = clusterPaths(cluster, env);
  const record = await loadClusterRecord(paths);
  const target = resolve(dir ?? `tkube-logs-${cluster}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const files: string[] = [];
  const write = async (relative: string, content: string) => {
    const path = join(target, relative);
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, content);
    files.push(relative);
  };
  await mkdir(target, { recursive: true });
  await copyFile(paths.controlPlaneLog, join(target, 'controlplane.log')).then(
    () => files.push('controlplane.log'),
    () => undefined,
  );
  await write('cluster.json', `${JSON.stringify(record, null, 2)}\n`);
  if (record.nodes > 0) {
    const provider = dockerProvider();
    await provider.checkAvailable().catch((error: unknown) => {
      throw new ClusterError(`cannot export the nodes' logs: ${errorMessage(error)}`);
    });
    for (const node of await provider.listNodes(cluster)) {
      await write(
        `${node.name}/inspect.json`,
        `${JSON.stringify(await provider.inspectNode(node.name), null, 2)}\n`,
      );
      if (node.state !== 'running') continue;
      const listing = await provider.exec(node.name, ['find', '/var/log', '-type', 'f']);
      for (const file of listing.stdout.split('\n').filter((line) => line.startsWith('/var/log/'))) {
        const content = await provider.exec(node.name, ['cat', file]);
        if (content.exitCode === 0) await write(`${node.name}${file}`, content.stdout);
      }
    }
  }
  return { dir: target, files };
}
