// Pods are only admitted once their namespace has its `default` ServiceAccount (ServiceAccount
// admission), which the serviceaccount controller creates shortly after start. /readyz does not
// wait for them, as kube-apiserver's does not; `tkube up` does (like minikube's `default_sa`
// check), so a cluster that says it is up accepts pods at once.
import { sleep } from '../client/informers/index.js';
import { SYSTEM_NAMESPACES } from './bootstrap.js';

const POLL_MS = 10;

export interface DefaultServiceAccountWait {
  /** Whether the namespace's `default` ServiceAccount exists. */
  readonly exists: (namespace: string) => Promise<boolean>;
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * Resolves once every system namespace has its default account: to undefined, or after
 * `timeoutMs` (10 s by default) to the first namespace still without one.
 */
export async function waitForDefaultServiceAccounts(
  wait: DefaultServiceAccountWait,
): Promise<string | undefined> {
  const deadline = Date.now() + (wait.timeoutMs ?? 10_000);
  for (const namespace of SYSTEM_NAMESPACES) {
    while (!(await wait.exists(namespace))) {
      wait.signal?.throwIfAborted();
      if (Date.now() > deadline) return namespace;
      await sleep(POLL_MS);
    }
  }
  return undefined;
}
