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
 * `timeoutMs` (10 s by default) to the first namespace still without one. The namespaces are
 * asked at once, each round only those still without one (over the network, one after another
 * cost `tkube up` a round trip each).
 */
export async function waitForDefaultServiceAccounts(
  wait: DefaultServiceAccountWait,
): Promise<string | undefined> {
  const deadline = Date.now() + (wait.timeoutMs ?? 10_000);
  let missing: readonly string[] = SYSTEM_NAMESPACES;
  for (;;) {
    const found = await Promise.all(missing.map((namespace) => wait.exists(namespace)));
    missing = missing.filter((_, index) => !found[index]);
    if (missing.length === 0) return undefined;
    wait.signal?.throwIfAborted();
    if (Date.now() > deadline) return missing[0];
    await sleep(POLL_MS);
  }
}
