// Pods are only admitted once their namespace has its `default` ServiceAccount (ServiceAccount
// admission), which the serviceaccount controller creates. Like minikube's `default_sa` check, the
// control plane reports ready once the system namespaces have theirs, so a cluster that says it is
// up accepts pods at once.
import type { ApiServer } from '../apiserver/api-server.js';
import { sleep } from '../client/informers/index.js';
import { SYSTEM_NAMESPACES } from './bootstrap.js';

const POLL_MS = 10;

/** Resolves once every system namespace has its default account, or after `timeoutMs` (with a warning). */
export async function waitForDefaultServiceAccounts(api: ApiServer, timeoutMs = 10_000): Promise<void> {
  const accounts = api.resourceStore('', 'v1', 'serviceaccounts')!;
  const deadline = Date.now() + timeoutMs;
  for (const namespace of SYSTEM_NAMESPACES) {
    while (!(await accounts.find(namespace, 'default'))) {
      if (Date.now() > deadline) {
        console.error(`control plane: no default service account in namespace ${namespace} yet`);
        return;
      }
      await sleep(POLL_MS);
    }
  }
}
