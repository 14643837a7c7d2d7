import { Command, Flags } from '@oclif/core';
import { DATASTORE_ENDPOINT_ENV, runControlPlane } from '../controlplane/run.js';
import { MAX_FAKE_NODES } from '../providers/fake/pod-network-size.js';
import { parseDatastoreEndpoint } from '../storage/index.js';

export default class ControlPlane extends Command {
  static override hidden = true;
  static override description = 'Run a cluster control plane in the foreground (started by `tkube up`)';

  static override flags = {
    'state-dir': Flags.string({ required: true, description: "the cluster's state directory" }),
    'api-port': Flags.integer({ required: true, min: 0, max: 65535, description: 'the API server port' }),
    'bind-address': Flags.string({
      multiple: true,
      description: 'an address to listen on (default 127.0.0.1)',
    }),
    'fake-nodes': Flags.integer({
      min: 0,
      max: MAX_FAKE_NODES,
      default: 0,
      description: 'simulated nodes to run in the control plane process',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ControlPlane);
    const endpoint = process.env[DATASTORE_ENDPOINT_ENV];
    await runControlPlane(
      {
        stateDir: flags['state-dir'],
        apiPort: flags['api-port'],
        bindAddresses: flags['bind-address'],
        fakeNodes: flags['fake-nodes'],
        ...(endpoint && { datastore: parseDatastoreEndpoint(endpoint) }),
      },
      (line) => this.log(line),
    );
  }
}
