// Printers of networking.k8s.io and discovery.k8s.io.
import type { KubeObject } from '../../api/object.js';
import { at, int, list, optObj, optStr, str } from './access.js';
import { AGE, column, fieldColumn, NAME } from './columns.js';
import { formatLabelSelector, listWithMore } from './format.js';
import { ageOf, nameOf } from './meta.js';
import { loadBalancerIngress } from './service.js';
import type { KindPrinter } from './types.js';

/** formatHosts: up to three rule hosts, `*` when no rule names one. */
function ingressHosts(ingress: KubeObject): string {
  const rules = list(ingress, 'spec', 'rules');
  const max = 3;
  const hosts: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (hosts.length === max) more = true;
    const host = str(rule, 'host');
    if (!more && host !== '') hosts.push(host);
  }
  if (hosts.length === 0) return '*';
  // Kubernetes counts the rules, not the hosts, for the "more" figure.
  return more ? `${hosts.join(',')} + ${rules.length - max} more...` : hosts.join(',');
}

export const ingresses: KindPrinter = {
  columns: [
    NAME,
    column(
      'Class',
      'string',
      'The name of the IngressClass resource that should be used for additional configuration',
    ),
    column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    AGE,
  ],
  row(ingress, now) {
    return [
      nameOf(ingress),
      optStr(ingress, 'spec', 'ingressClassName') ?? '<none>',
      ingressHosts(ingress),
      loadBalancerIngress(list(ingress, 'status', 'loadBalancer', 'ingress')),
      list(ingress, 'spec', 'tls').length > 0 ? '80, 443' : '80',
      ageOf(ingress, now),
    ];
  },
};

export const ingressClasses: KindPrinter = {
  columns: [
    NAME,
    column('Controller', 'string', 'Controller that is responsible for handling this class'),
    column('Parameters', 'string', 'A reference to a resource with additional parameters'),
    AGE,
  ],
  row(ingressClass, now) {
    const parameters = optObj(ingressClass, 'spec', 'parameters');
    let parametersText = '<none>';
    if (parameters !== undefined) {
      const group = optStr(parameters, 'apiGroup');
      const kind = group === undefined ? str(parameters, 'kind') : `${str(parameters, 'kind')}.${group}`;
      parametersText = `${kind}/${str(parameters, 'name')}`;
    }
    return [
      nameOf(ingressClass),
      str(ingressClass, 'spec', 'controller'),
      parametersText,
      ageOf(ingressClass, now),
    ];
  },
};

export const networkPolicies: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('Pod-Selector', 'string', 'extensions/v1beta1.NetworkPolicySpec.podSelector'),
    AGE,
  ],
  row(policy, now) {
    // spec.podSelector is a struct, not a pointer: a missing one is the empty selector.
    return [nameOf(policy), formatLabelSelector(at(policy, 'spec', 'podSelector') ?? {}), ageOf(policy, now)];
  },
};

export const serviceCIDRs: KindPrinter = {
  columns: [NAME, fieldColumn('CIDRs', 'string', 'networking/v1beta1.ServiceCIDRSpec.cidrs'), AGE],
  row(cidr, now) {
    const cidrs = list(cidr, 'spec', 'cidrs').map((entry) => (typeof entry === 'string' ? entry : ''));
    return [nameOf(cidr), cidrs.join(','), ageOf(cidr, now)];
  },
};

export const ipAddresses: KindPrinter = {
  // Kubernetes defines no Age column here but still sends the age as a third cell.
  columns: [NAME, fieldColumn('ParentRef', 'string', 'networking/v1beta1.IPAddressSpec.parentRef')],
  row(address, now) {
    const parent = optObj(address, 'spec', 'parentRef');
    let parentText = '<none>';
    if (parent !== undefined) {
      const group = str(parent, 'group');
      const resource = str(parent, 'resource');
      parentText = (group === '' ? resource : `${resource}.${group}`).toLowerCase();
      const namespace = str(parent, 'namespace');
      if (namespace !== '') parentText += `/${namespace}`;
      parentText += `/${str(parent, 'name')}`;
    }
    return [nameOf(address), parentText, ageOf(address, now)];
  },
};

function endpointSlicePorts(slice: KubeObject): string {
  const ports = list(slice, 'ports').map((port) => {
    const number = at(port, 'port');
    if (typeof number === 'number') return String(int(port, 'port'));
    const name = at(port, 'name');
    return typeof name === 'string' ? name : '*';
  });
  return listWithMore(ports, ports.length, 3);
}

function endpointSliceAddresses(slice: KubeObject): string {
  const addresses = list(slice, 'endpoints').flatMap((endpoint) =>
    list(endpoint, 'addresses').map((address) => (typeof address === 'string' ? address : '')),
  );
  return listWithMore(addresses, addresses.length, 3);
}

export const endpointSlices: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('AddressType', 'string', 'discovery/v1beta1.EndpointSlice.addressType'),
    fieldColumn('Ports', 'string', 'discovery/v1beta1.EndpointSlice.ports'),
    fieldColumn('Endpoints', 'string', 'discovery/v1beta1.EndpointSlice.endpoints'),
    AGE,
  ],
  row(slice, now) {
    return [
      nameOf(slice),
      str(slice, 'addressType'),
      endpointSlicePorts(slice),
      endpointSliceAddresses(slice),
      ageOf(slice, now),
    ];
  },
};
