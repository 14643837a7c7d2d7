// The iptables rules of kube-proxy's iptables mode (pkg/proxy/iptables/proxier.go,
// syncProxyRules), as a pure function of the proxied service ports, their endpoints and the node:
// the filter table whole, the nat table's fixed chains, and each service's own chains apart, so
// a sync can write only the chains that changed.
import {
  KUBE_EXTERNAL_SERVICES,
  KUBE_FIREWALL,
  KUBE_FORWARD,
  KUBE_MARK_MASQ,
  KUBE_NODEPORTS,
  KUBE_POSTROUTING,
  KUBE_PROXY_FIREWALL,
  KUBE_SERVICES,
} from './chain-names.js';
import { categorizeEndpoints, type EndpointInfo, type ProxyTopology, servicePortKey } from './endpoints.js';
import { ruleText, type SavedTable } from './iptables.js';
import {
  externallyAccessible,
  type ServicePortInfo,
  usesClusterEndpoints,
  usesLocalEndpoints,
} from './service-ports.js';

/** kube-proxy's default `--iptables-masquerade-bit` 14, written as it writes it. */
export const MASQUERADE_MARK = '0x004000';

export interface ProxyNode extends ProxyTopology {
  /** The whole pod network: traffic from it is "local" (kube-proxy's ClusterCIDR detect-local mode). */
  readonly clusterCIDR: string;
}

export interface ProxyState {
  readonly servicePorts: readonly ServicePortInfo[];
  /** By `servicePortKey`. */
  readonly endpoints: ReadonlyMap<string, readonly EndpointInfo[]>;
}

export interface ProxyRules {
  /** The whole filter table input: chain lines then rules (always written whole, as upstream). */
  readonly filter: readonly string[];
  /** The nat table's fixed chains (KUBE-SERVICES, KUBE-NODEPORTS, ...) and their rules. */
  readonly natFixedChains: readonly string[];
  readonly natFixedRules: readonly string[];
  /** Each per-service nat chain (SVC, SVL, EXT, FW, SEP) with its rules, in write order. */
  readonly serviceChains: ReadonlyMap<string, readonly string[]>;
  /** Services (`ns/name`) each chain belongs to. */
  readonly chainOwners: ReadonlyMap<string, string>;
  /** Ports with a health check node port: the local endpoints' count each answers with. */
  readonly healthChecks: readonly HealthCheckPort[];
  /** Services with an internal or external Local policy and no local endpoint. */
  readonly noLocalEndpoints: { readonly internal: number; readonly external: number };
}

export interface HealthCheckPort {
  readonly namespace: string;
  readonly name: string;
  readonly port: number;
  readonly localEndpoints: number;
}

const chainLine = (chain: string) => `:${chain} - [0:0]`;
const quoted = (text: string) => `"${text}"`;

/** 1/n with ten decimals, as Go's `%0.10f`. */
export function probability(n: number): string {
  return (1 / n).toFixed(10);
}

/** The jump rules from the built-in chains into kube-proxy's (iptablesJumpChains). */
export interface JumpRule {
  readonly table: 'filter' | 'nat';
  readonly chain: string;
  readonly target: string;
  readonly args: readonly string[];
}

const NEW_ONLY = ['-m', 'conntrack', '--ctstate', 'NEW'] as const;

function jump(
  table: JumpRule['table'],
  target: string,
  chain: string,
  comment: string | undefined,
  extra: readonly string[] = [],
): JumpRule {
  const args = [...extra, ...(comment ? ['-m', 'comment', '--comment', comment] : []), '-j', target];
  return { table, chain, target, args };
}

export const JUMP_RULES: readonly JumpRule[] = [
  jump('filter', KUBE_EXTERNAL_SERVICES, 'INPUT', 'kubernetes externally-visible service portals', NEW_ONLY),
  jump(
    'filter',
    KUBE_EXTERNAL_SERVICES,
    'FORWARD',
    'kubernetes externally-visible service portals',
    NEW_ONLY,
  ),
  jump('filter', KUBE_NODEPORTS, 'INPUT', 'kubernetes health check service ports'),
  jump('filter', KUBE_SERVICES, 'FORWARD', 'kubernetes service portals', NEW_ONLY),
  jump('filter', KUBE_SERVICES, 'OUTPUT', 'kubernetes service portals', NEW_ONLY),
  jump('filter', KUBE_FORWARD, 'FORWARD', 'kubernetes forwarding rules'),
  jump('filter', KUBE_PROXY_FIREWALL, 'INPUT', 'kubernetes load balancer firewall', NEW_ONLY),
  jump('filter', KUBE_PROXY_FIREWALL, 'OUTPUT', 'kubernetes load balancer firewall', NEW_ONLY),
  jump('filter', KUBE_PROXY_FIREWALL, 'FORWARD', 'kubernetes load balancer firewall', NEW_ONLY),
  jump('nat', KUBE_SERVICES, 'OUTPUT', 'kubernetes service portals'),
  jump('nat', KUBE_SERVICES, 'PREROUTING', 'kubernetes service portals'),
  jump('nat', KUBE_POSTROUTING, 'POSTROUTING', 'kubernetes postrouting rules'),
  jump('filter', KUBE_FIREWALL, 'INPUT', undefined),
  jump('filter', KUBE_FIREWALL, 'OUTPUT', undefined),
];

/**
 * Whether a jump is in its built-in chain, by the saved tables: surely not when its target chain
 * is missing (no rule can jump to it), surely so when the save prints it as written, else only
 * `iptables -C` can tell (a save that orders or spells the matches its own way).
 */
export function jumpInSaved(
  jump: JumpRule,
  tables: ReadonlyMap<string, SavedTable>,
): 'present' | 'absent' | 'unknown' {
  const table = tables.get(jump.table);
  if (!table?.chains.has(jump.target)) return 'absent';
  const text = ruleText(jump.args);
  return table.rules.get(jump.chain)?.includes(text) ? 'present' : 'unknown';
}

/**
 * Above this many endpoints in all, endpoint rules go without comments: iptables-restore then has
 * much less to parse (upstream's largeClusterEndpointsThreshold).
 */
export const LARGE_CLUSTER_ENDPOINTS = 1000;

/** The rules for a state; deterministic (service ports in name order). */
export function generateRules(state: ProxyState, node: ProxyNode): ProxyRules {
  let totalEndpoints = 0;
  for (const port of state.servicePorts) {
    totalEndpoints += state.endpoints.get(servicePortKey(port.nameString, port.protocol))?.length ?? 0;
  }
  const comment =
    totalEndpoints > LARGE_CLUSTER_ENDPOINTS ? () => '' : (text: string) => ` -m comment --comment ${text}`;
  const mark = `${MASQUERADE_MARK}/${MASQUERADE_MARK}`;
  const ifLocal = `-s ${node.clusterCIDR}`;
  const ifNotLocal = `! -s ${node.clusterCIDR}`;
  const filterChains = [
    KUBE_SERVICES,
    KUBE_EXTERNAL_SERVICES,
    KUBE_FORWARD,
    KUBE_NODEPORTS,
    KUBE_PROXY_FIREWALL,
  ].map(chainLine);
  const filterRules: string[] = [];
  const natFixedChains = [KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ].map(chainLine);
  const natFixedRules: string[] = [
    `-A ${KUBE_POSTROUTING} -m mark ! --mark ${mark} -j RETURN`,
    // Clear the mark so a packet that goes through the stack again is not masqueraded twice.
    `-A ${KUBE_POSTROUTING} -j MARK --xor-mark ${MASQUERADE_MARK}`,
    `-A ${KUBE_POSTROUTING} -m comment --comment ${quoted('kubernetes service traffic requiring SNAT')} -j MASQUERADE --random-fully`,
    `-A ${KUBE_MARK_MASQ} -j MARK --or-mark ${MASQUERADE_MARK}`,
  ];
  // route_localnet makes NodePorts answer on 127.0.0.1; this keeps others from using it (issue 90259).
  filterChains.push(chainLine(KUBE_FIREWALL));
  filterRules.push(
    `-A ${KUBE_FIREWALL} -m comment --comment ${quoted('block incoming localnet connections')} -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP`,
  );
  const serviceChains = new Map<string, string[]>();
  const chainOwners = new Map<string, string>();
  const healthChecks = new Map<string, Omit<HealthCheckPort, 'localEndpoints'> & { ips: Set<string> }>();
  const noLocalEndpoints = { internal: 0, external: 0 };
  const ports = [...state.servicePorts].sort((a, b) =>
    a.nameString === b.nameString
      ? a.protocol.localeCompare(b.protocol)
      : a.nameString < b.nameString
        ? -1
        : 1,
  );

  for (const svc of ports) {
    const { protocol, nameString: svcName } = svc;
    const owner = `${svc.namespace}/${svc.name}`;
    const newChain = (chain: string): string[] => {
      const rules: string[] = [];
      serviceChains.set(chain, rules);
      chainOwners.set(chain, owner);
      return rules;
    };
    const all = state.endpoints.get(servicePortKey(svcName, protocol)) ?? [];
    const usesCluster = usesClusterEndpoints(svc);
    const usesLocal = usesLocalEndpoints(svc);
    const { cluster, local, reachable, hasAny } = categorizeEndpoints(all, usesCluster, usesLocal, node);
    const usesClusterChain = cluster.length > 0 && usesCluster;
    const usesLocalChain = local.length > 0 && usesLocal;
    const internalChain = svc.internalPolicyLocal ? svc.localPolicyChain : svc.clusterPolicyChain;
    const hasInternal = hasAny && !(svc.internalPolicyLocal && local.length === 0);
    const externalPolicyChain = svc.externalPolicyLocal ? svc.localPolicyChain : svc.clusterPolicyChain;
    const hasExternal = hasAny && !(svc.externalPolicyLocal && local.length === 0);
    const usesExternalChain = hasAny && externallyAccessible(svc);
    const usesFirewallChain =
      hasAny && svc.loadBalancerVIPs.length > 0 && svc.loadBalancerSourceRanges.length > 0;
    const lbChain = usesFirewallChain ? svc.firewallChain : svc.externalChain;

    let internalTarget = '';
    let internalComment = '';
    let externalTarget = '';
    let externalComment = '';
    if (!hasAny) {
      internalTarget = externalTarget = 'REJECT';
      internalComment = externalComment = quoted(`${svcName} has no endpoints`);
    } else {
      if (!hasInternal) {
        internalTarget = 'DROP';
        internalComment = quoted(`${svcName} has no local endpoints`);
        noLocalEndpoints.internal++;
      }
      if (!hasExternal) {
        externalTarget = 'DROP';
        externalComment = quoted(`${svcName} has no local endpoints`);
        noLocalEndpoints.external++;
      }
    }
    const match = `-m ${protocol} -p ${protocol}`;
    const toService = (ip: string, port: number) => `${match} -d ${ip} --dport ${port}`;

    // The cluster IP.
    const clusterIPMatch = `-m comment --comment ${quoted(`${svcName} cluster IP`)} ${toService(svc.clusterIP, svc.port)}`;
    if (hasInternal) natFixedRules.push(`-A ${KUBE_SERVICES} ${clusterIPMatch} -j ${internalChain}`);
    else {
      filterRules.push(
        `-A ${KUBE_SERVICES} -m comment --comment ${internalComment} ${toService(svc.clusterIP, svc.port)} -j ${internalTarget}`,
      );
    }
    // External IPs.
    for (const ip of svc.externalIPs) {
      if (hasAny) {
        natFixedRules.push(
          `-A ${KUBE_SERVICES} -m comment --comment ${quoted(`${svcName} external IP`)} ${toService(ip, svc.port)} -j ${svc.externalChain}`,
        );
      }
      if (!hasExternal) {
        filterRules.push(
          `-A ${KUBE_EXTERNAL_SERVICES} -m comment --comment ${externalComment} ${toService(ip, svc.port)} -j ${externalTarget}`,
        );
      }
    }
    // Load-balancer addresses.
    for (const ip of svc.loadBalancerVIPs) {
      if (hasAny) {
        natFixedRules.push(
          `-A ${KUBE_SERVICES} -m comment --comment ${quoted(`${svcName} loadbalancer IP`)} ${toService(ip, svc.port)} -j ${lbChain}`,
        );
      }
      if (usesFirewallChain) {
        filterRules.push(
          `-A ${KUBE_PROXY_FIREWALL} -m comment --comment ${quoted(`${svcName} traffic not accepted by ${svc.firewallChain}`)} ${toService(ip, svc.port)} -j DROP`,
        );
      }
    }
    if (!hasExternal) {
      for (const ip of svc.loadBalancerVIPs) {
        filterRules.push(
          `-A ${KUBE_EXTERNAL_SERVICES} -m comment --comment ${externalComment} ${toService(ip, svc.port)} -j ${externalTarget}`,
        );
      }
    }
    // The node port.
    if (svc.nodePort !== 0) {
      if (hasAny) {
        natFixedRules.push(
          `-A ${KUBE_NODEPORTS} -m comment --comment ${svcName} ${match} --dport ${svc.nodePort} -j ${svc.externalChain}`,
        );
      }
      if (!hasExternal) {
        filterRules.push(
          `-A ${KUBE_EXTERNAL_SERVICES} -m comment --comment ${externalComment} -m addrtype --dst-type LOCAL ${match} --dport ${svc.nodePort} -j ${externalTarget}`,
        );
      }
    }
    // The health check node port, open whether or not endpoints are local.
    if (svc.healthCheckNodePort !== 0) {
      filterRules.push(
        `-A ${KUBE_NODEPORTS} -m comment --comment ${quoted(`${svcName} health check node port`)} -m tcp -p tcp --dport ${svc.healthCheckNodePort} -j ACCEPT`,
      );
      // One server per service, counting its distinct ready local addresses over all its ports.
      let check = healthChecks.get(owner);
      if (!check) {
        check = { namespace: svc.namespace, name: svc.name, port: svc.healthCheckNodePort, ips: new Set() };
        healthChecks.set(owner, check);
      }
      for (const ep of all) if (ep.isLocal && ep.ready) check.ips.add(ep.ip);
    }

    // Traffic to the cluster IP from outside the pod network may leave the node: masquerade it.
    if (hasInternal) {
      const rules = serviceChains.get(internalChain) ?? newChain(internalChain);
      rules.push(`-A ${internalChain} ${clusterIPMatch} ${ifNotLocal} -j ${KUBE_MARK_MASQ}`);
    }
    if (usesExternalChain) {
      const chain = svc.externalChain;
      const rules = newChain(chain);
      if (!svc.externalPolicyLocal) {
        rules.push(
          `-A ${chain} -m comment --comment ${quoted(`masquerade traffic for ${svcName} external destinations`)} -j ${KUBE_MARK_MASQ}`,
        );
      } else {
        // Pods and the node itself reach an external destination as if from outside and back in,
        // so Cluster policy applies to them; the node's own traffic carries a local source address.
        rules.push(
          `-A ${chain} -m comment --comment ${quoted(`pod traffic for ${svcName} external destinations`)} ${ifLocal} -j ${svc.clusterPolicyChain}`,
          `-A ${chain} -m comment --comment ${quoted(`masquerade LOCAL traffic for ${svcName} external destinations`)} -m addrtype --src-type LOCAL -j ${KUBE_MARK_MASQ}`,
          `-A ${chain} -m comment --comment ${quoted(`route LOCAL traffic for ${svcName} external destinations`)} -m addrtype --src-type LOCAL -j ${svc.clusterPolicyChain}`,
        );
      }
      if (hasExternal) rules.push(`-A ${chain} -j ${externalPolicyChain}`);
    }
    if (usesFirewallChain) {
      const chain = svc.firewallChain;
      const rules = newChain(chain);
      const head = `-A ${chain} -m comment --comment ${quoted(`${svcName} loadbalancer IP`)}`;
      for (const range of svc.loadBalancerSourceRanges)
        rules.push(`${head} -s ${range} -j ${svc.externalChain}`);
      rules.push(
        `-A ${chain} -m comment --comment ${quoted(`other traffic to ${svcName} will be dropped by KUBE-PROXY-FIREWALL`)}`,
      );
    }
    if (usesClusterChain) {
      const rules = serviceChains.get(svc.clusterPolicyChain) ?? newChain(svc.clusterPolicyChain);
      writeServiceToEndpointRules(rules, svc, svc.clusterPolicyChain, cluster, comment);
    }
    if (usesLocalChain) {
      const rules = serviceChains.get(svc.localPolicyChain) ?? newChain(svc.localPolicyChain);
      writeServiceToEndpointRules(rules, svc, svc.localPolicyChain, local, comment);
    }
    for (const ep of reachable) {
      const rules = newChain(ep.chain);
      const head = `-A ${ep.chain}${comment(svcName)}`;
      // A pod reaching itself through the service must see the node's address, not its own.
      rules.push(`${head} -s ${ep.ip} -j ${KUBE_MARK_MASQ}`);
      const affinity = svc.stickyMaxAgeSeconds > 0 ? ` -m recent --name ${ep.chain} --set` : '';
      rules.push(`${head}${affinity} ${match} -j DNAT --to-destination ${ep.endpoint}`);
    }
  }
  // Policy chains are created lazily above; a chain with a masquerade rule but no endpoints
  // (usesCluster false) cannot happen: hasInternal implies endpoints in the internal chain.

  natFixedRules.push(
    `-A ${KUBE_SERVICES} -m comment --comment ${quoted('kubernetes service nodeports; NOTE: this must be the last rule in this chain')} -m addrtype --dst-type LOCAL -j ${KUBE_NODEPORTS}`,
  );
  filterRules.push(
    `-A ${KUBE_FORWARD} -m conntrack --ctstate INVALID -j DROP`,
    `-A ${KUBE_FORWARD} -m comment --comment ${quoted('kubernetes forwarding rules')} -m mark --mark ${mark} -j ACCEPT`,
    `-A ${KUBE_FORWARD} -m comment --comment ${quoted('kubernetes forwarding conntrack rule')} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`,
  );
  return {
    filter: [...filterChains, ...filterRules],
    natFixedChains,
    natFixedRules,
    serviceChains,
    chainOwners,
    healthChecks: [...healthChecks.values()].map(({ ips, ...check }) => ({
      ...check,
      localEndpoints: ips.size,
    })),
    noLocalEndpoints,
  };
}

function writeServiceToEndpointRules(
  rules: string[],
  svc: ServicePortInfo,
  chain: string,
  endpoints: readonly EndpointInfo[],
  comment: (text: string) => string,
): void {
  if (svc.stickyMaxAgeSeconds > 0) {
    for (const ep of endpoints) {
      rules.push(
        `-A ${chain}${comment(quoted(`${svc.nameString} -> ${ep.endpoint}`))} -m recent --name ${ep.chain} --rcheck --seconds ${svc.stickyMaxAgeSeconds} --reap -j ${ep.chain}`,
      );
    }
  }
  endpoints.forEach((ep, i) => {
    const spread =
      i < endpoints.length - 1
        ? ` -m statistic --mode random --probability ${probability(endpoints.length - i)}`
        : '';
    rules.push(
      `-A ${chain}${comment(quoted(`${svc.nameString} -> ${ep.endpoint}`))}${spread} -j ${ep.chain}`,
    );
  });
}

export interface RestoreOptions {
  /** The service chains written by the last successful sync; absent for a full sync. */
  readonly previous?: ReadonlyMap<string, readonly string[]>;
  /** Service chains present in the kernel that the new rules lack (deleted in this restore). */
  readonly staleChains?: Iterable<string>;
  /** Jumps missing from the built-in chains, each put first in the order given (upstream's EnsureRule Prepend). */
  readonly jumps?: readonly JumpRule[];
}

/**
 * The `iptables-restore --noflush` input: the filter table and the nat table's fixed chains
 * whole; the service chains all (full sync) or only those whose rules changed (partial sync);
 * chains no longer used flushed and deleted.
 */
export function restoreInput(rules: ProxyRules, options: RestoreOptions = {}): string {
  const { previous } = options;
  const natChains = [...rules.natFixedChains];
  const natRules = [...rules.natFixedRules];
  for (const [chain, lines] of rules.serviceChains) {
    const before = previous?.get(chain);
    if (before && sameLines(before, lines)) continue;
    natChains.push(chainLine(chain));
    natRules.push(...lines);
  }
  const deleted = new Set<string>(options.staleChains ?? []);
  if (previous) for (const chain of previous.keys()) if (!rules.serviceChains.has(chain)) deleted.add(chain);
  for (const chain of deleted) {
    if (rules.serviceChains.has(chain)) continue;
    natChains.push(chainLine(chain));
    natRules.push(`-X ${chain}`);
  }
  const insert = (table: JumpRule['table']) =>
    (options.jumps ?? [])
      .filter((jump) => jump.table === table)
      .map((jump) => `-I ${jump.chain} 1 ${ruleText(jump.args)}`);
  return [
    '*filter',
    ...rules.filter,
    ...insert('filter'),
    'COMMIT',
    '*nat',
    ...natChains,
    ...natRules,
    ...insert('nat'),
    'COMMIT',
    '',
  ].join('\n');
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}
