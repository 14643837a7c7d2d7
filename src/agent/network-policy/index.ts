// Network policy enforcement as the agent starts it: informers over every pod, namespace and
// NetworkPolicy (under the pod-network identity, which tkube's policy lets read them) feeding the
// node's enforcer.
import type { Namespace, Pod } from '../../api/types/core-v1.generated.js';
import type { NetworkPolicy } from '../../api/types/networking-v1.generated.js';
import { SharedInformerFactory } from '../../client/informers/index.js';
import { findBuiltinResource, NAMESPACES, PODS } from '../../client/resources.js';
import type { Client } from '../../client/types.js';
import { NetworkPolicyEnforcer } from './enforcer.js';

export { NetworkPolicyEnforcer } from './enforcer.js';

const NETWORK_POLICIES = findBuiltinResource('networking.k8s.io', 'v1', 'networkpolicies')!;

/** The enforcer and its informers; `run` ends when the signal aborts. */
export function nodeNetworkPolicies(options: { client: Client; nodeName: string }): {
  enforcer: NetworkPolicyEnforcer;
  run(signal: AbortSignal): Promise<void>;
} {
  const informers = new SharedInformerFactory(options.client);
  const enforcer = new NetworkPolicyEnforcer({
    nodeName: options.nodeName,
    pods: informers.informerFor<Pod>(PODS),
    namespaces: informers.informerFor<Namespace>(NAMESPACES),
    policies: informers.informerFor<NetworkPolicy>(NETWORK_POLICIES),
  });
  return {
    enforcer,
    async run(signal) {
      informers.start(signal);
      try {
        await enforcer.run(signal);
      } finally {
        await informers.stop();
      }
    },
  };
}
