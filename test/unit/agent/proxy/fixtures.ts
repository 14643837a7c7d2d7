// Services and EndpointSlices for the proxy's rule tests, with Kubernetes' field names.

import { endpointsBySlicePort } from '../../../../src/agent/proxy/endpoints.js';
import type { ProxyState } from '../../../../src/agent/proxy/rules.js';
import { servicePortsOf } from '../../../../src/agent/proxy/service-ports.js';
import type { Service } from '../../../../src/api/types/core-v1.generated.js';
import type { Endpoint, EndpointSlice } from '../../../../src/api/types/discovery-v1.generated.js';

export const NODE = 'px-node-1';
export const CLUSTER_CIDR = '10.244.0.0/16';

export function service(name: string, spec: Service['spec'], extra: Partial<Service> = {}): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: 'ns1', name, ...extra.metadata },
    spec: { type: 'ClusterIP', ...spec },
    ...(extra.status && { status: extra.status }),
  };
}

export function endpoint(ip: string, node: string, conditions: Endpoint['conditions'] = {}): Endpoint {
  return { addresses: [ip], nodeName: node, conditions: { ready: true, ...conditions } };
}

export function slice(
  serviceName: string,
  ports: EndpointSlice['ports'],
  endpoints: Endpoint[],
  labels: Record<string, string> = {},
  name = `${serviceName}-abcde`,
): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: 'ns1', name, labels: { 'kubernetes.io/service-name': serviceName, ...labels } },
    addressType: 'IPv4',
    ports,
    endpoints,
  };
}

export function state(services: Service[], slices: EndpointSlice[], nodeName = NODE): ProxyState {
  return {
    servicePorts: services.flatMap(servicePortsOf),
    endpoints: endpointsBySlicePort(slices, nodeName),
  };
}
