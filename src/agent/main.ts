// The agent inside a node container: registers the Node, keeps its status and Lease current,
// sets up the node's pod network, runs the kubelet's pods through containerd, programs the
// node's service rules (the proxy) and serves cluster DNS on the node's address. Its bundle's
// entry (bundle-main.ts) loads it and calls runAgentProcess.
import { setMaxListeners } from 'node:events';
import { mkdir, readFile } from 'node:fs/promises';
import { isLoadBalancerTarget } from '../api/load-balancer.js';
import type { Node, PersistentVolume, Service } from '../api/types/core-v1.generated.js';
import { SharedInformerFactory } from '../client/informers/index.js';
import { NODES, PVS, SERVICES } from '../client/resources.js';
import { httpsClient } from '../client/transports.js';
import { readAgentConfig } from './config.js';
import { ClusterDns } from './dns/cluster-dns.js';
import { NodeIngress } from './ingress/index.js';
import { clusterNameOfNode, Kubelet, parseResolvConf } from './kubelet/index.js';
import { startKubeletServer } from './kubelet/server/index.js';
import { nodeSpeaker } from './loadbalancer/index.js';
import { LocalPathCleaner } from './local-path/cleaner.js';
import { writeCniConfig } from './network/cni-config.js';
import { runCommand } from './network/host-commands.js';
import { PodNetwork } from './network/pod-network.js';
import { nodeNetworkPolicies } from './network-policy/index.js';
import { NodeLease } from './node/lease.js';
import { NodeStatusManager } from './node/node-status.js';
import { readNodeFacts } from './node/system-info.js';
import { nodeProxy } from './proxy/index.js';
import { TunnelClient } from './tunnel/tunnel-client.js';

const NETWORK_NOT_READY =
  'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized';

async function main(configPath: string | undefined): Promise<void> {
  const config = await readAgentConfig(configPath);
  const [ca, cert, key, networkCert, networkKey] = await Promise.all(
    [config.caFile, config.certFile, config.keyFile, config.networkCertFile, config.networkKeyFile].map(
      (path) => readFile(path, 'utf8'),
    ),
  );
  const client = httpsClient({ server: config.server, ca, cert, key, component: 'kubelet' });
  const networkClient = httpsClient({
    server: config.server,
    ca,
    cert: networkCert,
    key: networkKey,
    component: 'tkube-network',
  });
  const abort = new AbortController();
  // Every informer and loop of the kubelet, pod network and proxy listens for the stop.
  setMaxListeners(0, abort.signal);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => abort.abort());

  let networkConfigured = false;
  let registered: Node | undefined;
  let reportStatus = (): void => {};
  // Present from the start, so that the kubelet's watch sees the first manifest put there.
  if (config.staticPodPath) await mkdir(config.staticPodPath, { recursive: true }).catch(() => undefined);
  const hostResolvConf = parseResolvConf(await readFile('/etc/resolv.conf', 'utf8').catch(() => ''));
  const kubelet = new Kubelet({
    client,
    nodeName: config.nodeName,
    nodeIP: config.nodeIP,
    clusterName: clusterNameOfNode(config.nodeName),
    hostDns: hostResolvConf,
    node: () => registered,
    staticPodPath: config.staticPodPath,
    // The runtime's readiness decides the node's: report a change now, not at the next tick.
    onRuntimeHealthChange: () => reportStatus(),
  });
  const health = async () => {
    const reasons = [...kubelet.runtimeNotReadyReasons()];
    if (
      !networkConfigured &&
      !reasons.some((reason) => reason.startsWith('container runtime network not ready'))
    ) {
      reasons.push(NETWORK_NOT_READY);
    }
    return { notReadyReasons: reasons, memoryPressure: false, diskPressure: false, pidPressure: false };
  };
  const identity = {
    name: config.nodeName,
    internalIP: config.nodeIP,
    labels: config.labels,
    taints: config.taints,
    ...(config.podCIDR && { podCIDR: config.podCIDR }),
  };
  // With a planned pod CIDR, containerd's network can be ready before the Node registers.
  if (config.podCIDR) await writeCniConfig(config.podCIDR);
  const status = new NodeStatusManager(client, identity, {
    facts: () => readNodeFacts(() => kubelet.cri.version()),
    health,
  });
  await kubelet.health.check();
  registered = await status.registerWithRetry(abort.signal, (line) => console.error(`agent: ${line}`));
  reportStatus = () => {
    status
      .report(true)
      .catch((error: unknown) => console.error(`node status update failed: ${String(error)}`));
  };
  console.log(`agent: node ${config.nodeName} registered`);

  const informers = new SharedInformerFactory(networkClient);
  const nodes = informers.informerFor<Node>(NODES);
  const network = new PodNetwork(nodes, {
    nodeName: config.nodeName,
    clusterPodSubnet: config.podSubnet,
    run: runCommand,
    onConfigured: (podCIDR) => {
      if (networkConfigured) return;
      networkConfigured = true;
      console.log(`agent: pod network ${podCIDR} configured`);
      // Report Ready now rather than at the next 10 s tick.
      reportStatus();
    },
  });
  nodes.addEventHandler({
    onAdd: (node) => {
      if (node.metadata?.name === config.nodeName) registered = node;
    },
    onUpdate: (_old, node) => {
      if (node.metadata?.name === config.nodeName) registered = node;
    },
  });
  // The proxy, as its own identity (system:kube-proxy), when `up` installed one.
  const proxyClient =
    config.proxyCertFile && config.proxyKeyFile
      ? httpsClient({
          server: config.server,
          ca,
          cert: await readFile(config.proxyCertFile, 'utf8'),
          key: await readFile(config.proxyKeyFile, 'utf8'),
          component: 'kube-proxy',
        })
      : undefined;
  const proxy =
    proxyClient &&
    nodeProxy({ client: proxyClient, nodeName: config.nodeName, clusterCIDR: config.podSubnet });
  if (!proxy)
    console.error('agent: no proxy identity in the agent config: services are not proxied on this node');
  // LoadBalancer addresses announced from this node (MetalLB's layer 2), under the network identity.
  const speaker = await nodeSpeaker({
    client: networkClient,
    informers,
    nodeName: config.nodeName,
    nodeIP: config.nodeIP,
    run: runCommand,
  }).catch((error: unknown) => {
    console.error(`agent: no load balancer announcements from this node: ${String(error)}`);
    return undefined;
  });
  // The node's ingress controller on ports 80 and 443 of the node's own address only (where the
  // ingress's LoadBalancer service and kind-style port mappings send traffic): a wildcard listener
  // would also answer on the LoadBalancer addresses this node holds for user services whenever
  // their DNAT rules are not (yet) there, and keep those connections after the rules arrive.
  const ingress = new NodeIngress({
    client: networkClient,
    informers,
    nodeName: config.nodeName,
    bindAddress: config.nodeIP,
  });
  // Local-path volumes of this node: their directories go with their PersistentVolumes.
  new LocalPathCleaner({ nodeName: config.nodeName }).watch(
    informers.informerFor<PersistentVolume>(PVS),
    abort.signal,
  );
  new NodeLease(client, () => registered!, config.nodeName).start(abort.signal);
  status.start(abort.signal);
  const services = informers.informerFor<Service>(SERVICES);
  informers.start(abort.signal);
  // The kubelet's API (logs; exec and port-forward later), with the serving certificate `up` issued.
  if (config.servingCertFile && config.servingKeyFile) {
    const [certificatePem, privateKeyPem] = await Promise.all(
      [config.servingCertFile, config.servingKeyFile].map((path) => readFile(path, 'utf8')),
    );
    const server = await startKubeletServer({
      nodeName: config.nodeName,
      client,
      // The kubelet's API, with the proxy's metrics beside the kubelet's on /metrics.
      host: withMoreMetrics(kubelet, () => proxy?.proxier.metrics.render() ?? ''),
      tls: { certificatePem, privateKeyPem, clientCaPem: ca },
    });
    abort.signal.addEventListener('abort', () => void server.close(), { once: true });
  }
  // The node's cluster DNS server, under an identity of its own (as CoreDNS has one).
  const dnsClient =
    config.dnsCertFile && config.dnsKeyFile
      ? httpsClient({
          server: config.server,
          ca,
          cert: await readFile(config.dnsCertFile, 'utf8'),
          key: await readFile(config.dnsKeyFile, 'utf8'),
          component: 'tkube-dns',
        })
      : undefined;
  const dns = dnsClient
    ? new ClusterDns({ client: dnsClient, host: config.nodeIP, nameservers: hostResolvConf.servers })
        .run(abort.signal)
        .catch((error: unknown) => console.error(`agent: cluster DNS stopped: ${String(error)}`))
    : undefined;
  // The control plane's way into this node where the host cannot route to it (pods, the kubelet).
  const tunnel = new TunnelClient({
    server: config.server,
    ca,
    cert,
    key,
    nodeIP: config.nodeIP,
    podCIDRs: () => registered?.spec?.podCIDRs ?? (config.podCIDR ? [config.podCIDR] : []),
    loadBalancerTarget: ({ host, port }) =>
      services.lister.list().some((service) => isLoadBalancerTarget(service, host, port)),
  });
  // NetworkPolicy enforcement for this node's pods, under the pod-network identity.
  const networkPolicies = nodeNetworkPolicies({ client: networkClient, nodeName: config.nodeName });
  await Promise.all([
    network.run(abort.signal),
    kubelet.run(abort.signal),
    proxy?.run(abort.signal),
    networkPolicies.run(abort.signal),
    dns,
    tunnel.run(abort.signal),
    speaker?.run(abort.signal),
    ingress
      .run(abort.signal)
      .catch((error: unknown) => console.error(`agent: ingress controller stopped: ${String(error)}`)),
  ]);
  await informers.stop();
  await Promise.all([client.close(), networkClient.close(), proxyClient?.close(), dnsClient?.close()]);
}

/**
 * The kubelet as the server's host, its /metrics text followed by `more()`; every other member is
 * the kubelet's own, so whatever the server asks of its host later still reaches the kubelet.
 */
function withMoreMetrics(kubelet: Kubelet, more: () => string): Kubelet {
  return new Proxy(kubelet, {
    get(target, property) {
      if (property === 'metricsText') return () => target.metricsText() + more();
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Runs the agent on the configuration at `configPath` until a signal, then ends the process. */
export function runAgentProcess(configPath: string | undefined): void {
  main(configPath).then(
    // Calls still in flight (a container's grace period) must not hold a stopping agent: its pods
    // keep running and the next agent adopts them.
    () => process.exit(0),
    (error: unknown) => {
      console.error(`agent failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
