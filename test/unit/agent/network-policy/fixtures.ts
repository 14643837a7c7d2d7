// Pods, namespaces and policies for the network policy tests: pod x/a on this node etc.
import type { Namespace, Pod } from '../../../../src/api/types/core-v1.generated.js';
import type { NetworkPolicy, NetworkPolicySpec } from '../../../../src/api/types/networking-v1.generated.js';

export const NODE = 'node-1';

export function pod(
  namespace: string,
  name: string,
  ip: string,
  options: {
    node?: string;
    labels?: Record<string, string>;
    ports?: { name: string; port: number; protocol?: string }[];
  } = {},
): Pod {
  return {
    metadata: { namespace, name, labels: options.labels ?? { pod: name } },
    spec: {
      nodeName: options.node ?? NODE,
      containers: [
        {
          name: 'c',
          image: 'busybox',
          ports: (options.ports ?? []).map((port) => ({
            name: port.name,
            containerPort: port.port,
            protocol: port.protocol,
          })),
        },
      ],
    },
    status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] },
  };
}

export function namespace(name: string, labels: Record<string, string> = { ns: name }): Namespace {
  return { metadata: { name, labels } };
}

export function policy(namespace: string, name: string, spec: NetworkPolicySpec): NetworkPolicy {
  return { metadata: { namespace, name }, spec };
}
