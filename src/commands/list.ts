import { Command, Flags } from '@oclif/core';
import { humanDuration } from '../apiserver/printers/duration.js';
import { errorMessage } from '../cluster/errors.js';
import { type ClusterListEntry, listClusters } from '../cluster/status.js';

export default class List extends Command {
  static override description = 'List the clusters and their status';

  static override examples = ['<%= config.bin %> list', '<%= config.bin %> list -o json'];

  static override flags = {
    output: Flags.string({ char: 'o', description: 'output format', options: ['json', 'name'] }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(List);
    let entries: ClusterListEntry[];
    try {
      entries = await listClusters();
    } catch (error) {
      this.logToStderr(`Error: ${errorMessage(error)}`);
      this.exit(1);
    }
    if (flags.output === 'json') {
      this.log(JSON.stringify(entries, null, 2));
      return;
    }
    if (flags.output === 'name') {
      for (const entry of entries) this.log(entry.name);
      return;
    }
    if (entries.length === 0) {
      this.logToStderr('No clusters found.');
      return;
    }
    const now = Date.now();
    const rows = [
      ['NAME', 'STATUS', 'API SERVER', 'NODES', 'AGE'],
      ...entries.map((entry) =>
        'status' in entry
          ? [
              entry.name,
              entry.status.state,
              entry.status.apiServer.url,
              String(entry.status.nodes),
              humanDuration(now - Date.parse(entry.status.createdAt)),
            ]
          : [entry.name, 'Damaged', '<unknown>', '<unknown>', '<unknown>'],
      ),
    ];
    // kubectl's table layout: columns padded to their widest cell, three spaces apart.
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
    for (const row of rows) {
      this.log(
        row
          .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]! + 3)))
          .join(''),
      );
    }
  }
}
