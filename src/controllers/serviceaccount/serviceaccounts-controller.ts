// The serviceaccount controller: every Active namespace has a `default` ServiceAccount, created
// with the namespace and again whenever it is deleted.
import type { Namespace, ServiceAccount } from '../../api/types/core-v1.generated.js';
import { Controller, objectOf } from '../../client/controller.js';
import { NAMESPACES, SERVICE_ACCOUNTS } from '../../client/resources.js';
import { hasStatusCause, isAlreadyExists } from '../../client/rest/index.js';
import type { ControllerContext, ControllerDescriptor } from '../context.js';

const SERVICE_ACCOUNT = 'service-account-controller';
/** `--concurrent-serviceaccount-token-syncs`' default, which this controller uses too. */
const WORKERS = 5;
/** The accounts every namespace gets. */
const ACCOUNTS_TO_ENSURE: readonly string[] = ['default'];

export class ServiceAccountsController {
  readonly controller: Controller;

  constructor(private readonly context: ControllerContext) {
    const namespaces = context.informers.informerFor<Namespace>(NAMESPACES);
    const accounts = context.informers.informerFor<ServiceAccount>(SERVICE_ACCOUNTS);
    this.controller = new Controller({
      name: 'serviceaccount',
      sync: (key) => this.sync(key),
      workers: WORKERS,
      waitFor: [accounts],
    });
    // A deleted account brings its namespace back for a look; new and changed namespaces too.
    accounts.addEventHandler({
      onDelete: (deleted) => {
        const namespace = objectOf(deleted).metadata?.namespace;
        if (namespace) this.controller.enqueueKey(namespace);
      },
    });
    this.controller.watch(namespaces, (namespace) => namespace.metadata?.name);
  }

  async sync(name: string): Promise<void> {
    const { informers } = this.context;
    const namespace = informers.listerFor<Namespace>(NAMESPACES).get('', name);
    // Nothing is created in a namespace that is not Active (being deleted).
    if (namespace?.status?.phase !== 'Active') return;
    const accounts = informers.listerFor<ServiceAccount>(SERVICE_ACCOUNTS);
    const client = this.context.clientFor(SERVICE_ACCOUNT).resource<ServiceAccount>(SERVICE_ACCOUNTS);
    const failures: string[] = [];
    for (const account of ACCOUNTS_TO_ENSURE) {
      if (accounts.get(name, account)) continue;
      try {
        await client.create({ metadata: { name: account, namespace: name } });
      } catch (error) {
        if (isAlreadyExists(error) || hasStatusCause(error, 'NamespaceTerminating')) continue;
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
    if (failures.length > 0) throw new Error(failures.join(', '));
  }
}

export const serviceAccountController: ControllerDescriptor = {
  name: 'serviceaccount-controller',
  create: (context) => new ServiceAccountsController(context).controller,
};
