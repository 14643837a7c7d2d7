// Services: the count, plus node ports and load balancers by service type.

import { isJsonObject, type KubeObject } from '../../../api/object.js';
import { Quantity } from '../../../api/quantity.js';
import { matchesNoScope, type QuotaEvaluator } from './evaluator.js';
import { objectField } from './pod-resources.js';
import { intersection, type ResourceList } from './resource-list.js';

const SERVICE_RESOURCES = ['count/services', 'services', 'services.nodeports', 'services.loadbalancers'];

function ports(service: KubeObject): unknown[] {
  const list = objectField(service, 'spec', 'ports');
  return Array.isArray(list) ? list : [];
}

function nodePortCount(service: KubeObject): number {
  const type = objectField(service, 'spec', 'type');
  if (type === 'NodePort') return ports(service).length;
  if (type !== 'LoadBalancer') return 0;
  // With node port allocation off, only ports given an explicit node port use one.
  if (objectField(service, 'spec', 'allocateLoadBalancerNodePorts') === false) {
    return ports(service).filter(
      (port) => isJsonObject(port) && typeof port.nodePort === 'number' && port.nodePort !== 0,
    ).length;
  }
  return ports(service).length;
}

export function serviceUsage(service: KubeObject): ResourceList {
  const loadBalancer = objectField(service, 'spec', 'type') === 'LoadBalancer';
  return {
    'count/services': Quantity.fromInteger(1),
    services: Quantity.fromInteger(1),
    'services.loadbalancers': Quantity.fromInteger(loadBalancer ? 1 : 0),
    'services.nodeports': Quantity.fromInteger(nodePortCount(service)),
  };
}

export const serviceEvaluator: QuotaEvaluator = {
  // Updates count too: the type of a service can change.
  handles: ({ operation }) => operation === 'CREATE' || operation === 'UPDATE',
  matchingResources: (input) => intersection(input, SERVICE_RESOURCES),
  matchesScope: matchesNoScope,
  constraints: () => undefined,
  usage: serviceUsage,
};
