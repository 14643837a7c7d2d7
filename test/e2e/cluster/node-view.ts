// What the cluster e2e suites check of a Node: its name, address, pod CIDR and readiness, read
// from `kubectl get nodes -o json`.

export interface NodeView {
  name: string;
  podCIDR: string;
  ip: string;
  ready: boolean;
}

/** The nodes of a `kubectl get nodes -o json` answer. */
export function parseNodeViews(json: string): NodeView[] {
  const list = JSON.parse(json) as {
    items: {
      metadata: { name: string };
      spec: { podCIDR?: string };
      status: {
        addresses?: { type: string; address: string }[];
        conditions?: { type: string; status: string }[];
      };
    }[];
  };
  return list.items.map((node) => ({
    name: node.metadata.name,
    podCIDR: node.spec.podCIDR ?? '',
    ip: node.status.addresses?.find((a) => a.type === 'InternalIP')?.address ?? '',
    ready: node.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
  }));
}
