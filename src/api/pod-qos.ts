import { parseQuantity, type Quantity } from './quantity.js';

interface Resources {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
}

interface PodSpecShape {
  containers?: { resources?: Resources }[];
  initContainers?: { resources?: Resources }[];
}

const QOS_RESOURCES = new Set(['cpu', 'memory']);

function positive(text: string): Quantity | undefined {
  const parsed = parseQuantity(text);
  return 'quantity' in parsed && parsed.quantity.sign() > 0 ? parsed.quantity : undefined;
}

function addTo(sums: Map<string, Quantity>, name: string, quantity: Quantity): void {
  const sum = sums.get(name);
  sums.set(name, sum ? sum.add(quantity) : quantity);
}

/**
 * The pod's QoS class as Kubernetes computes it (GetPodQOS): BestEffort without any cpu or
 * memory request or limit; Guaranteed when every container limits both and requests equal
 * limits; Burstable otherwise.
 */
export function podQosClass(spec: PodSpecShape | undefined): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const requests = new Map<string, Quantity>();
  const limits = new Map<string, Quantity>();
  let guaranteed = true;
  for (const container of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])]) {
    for (const [name, text] of Object.entries(container.resources?.requests ?? {})) {
      const quantity = QOS_RESOURCES.has(name) ? positive(String(text)) : undefined;
      if (quantity) addTo(requests, name, quantity);
    }
    const limited = new Set<string>();
    for (const [name, text] of Object.entries(container.resources?.limits ?? {})) {
      const quantity = QOS_RESOURCES.has(name) ? positive(String(text)) : undefined;
      if (quantity) {
        limited.add(name);
        addTo(limits, name, quantity);
      }
    }
    if (limited.size !== QOS_RESOURCES.size) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, request] of requests) {
      const limit = limits.get(name);
      if (!limit?.equals(request)) guaranteed = false;
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
