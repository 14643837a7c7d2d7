// discovery.k8s.io/v1 EndpointSlices.
import type { KubeObject } from '../../../../api/object.js';
import {
  childPath,
  type FieldError,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
} from '../../../../api/selectors/index.js';
import { isIPv6String, validateIp } from '../ip.js';
import { objectOf, objectsOf, optionalString, stringMapOf, stringOf, stringsOf } from '../json.js';
import {
  isDns1123Label,
  isDns1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDnsSubdomain,
} from '../names.js';
import {
  fieldDuplicate,
  fieldTooMany,
  validateImmutable,
  validateLabels,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../object-meta.js';

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;
const MAX_ENDPOINTS = 1000;
const MAX_ZONE_HINTS = 8;
const MAX_NODE_HINTS = 8;

/** IsFullyQualifiedDomainName. */
function validateFqdn(path: string, value: string): FieldError[] {
  if (value === '') return [fieldRequired(path, '')];
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const problems = isDns1123Subdomain(name);
  if (problems.length > 0) return [fieldInvalid(path, name, problems.join(','))];
  const labels = name.split('.');
  if (labels.length < 2)
    return [fieldInvalid(path, name, 'should be a domain with at least two segments separated by dots')];
  for (const label of labels) {
    const labelProblems = isDns1123Label(label);
    if (labelProblems.length > 0) return [fieldInvalid(path, label, labelProblems.join(','))];
  }
  return [];
}

function validateEndpoints(slice: KubeObject): FieldError[] {
  const endpoints = objectsOf(slice.endpoints);
  if (endpoints.length > MAX_ENDPOINTS) return [fieldTooMany('endpoints', endpoints.length, MAX_ENDPOINTS)];
  const addressType = stringOf(slice.addressType);
  const errors: FieldError[] = [];
  endpoints.forEach((endpoint, index) => {
    const endpointPath = indexPath('endpoints', index);
    const addressesPath = childPath(endpointPath, 'addresses');
    const addresses = stringsOf(endpoint.addresses);
    if (addresses.length === 0) errors.push(fieldRequired(addressesPath, 'must contain at least 1 address'));
    else if (addresses.length > MAX_ADDRESSES)
      errors.push(fieldTooMany(addressesPath, addresses.length, MAX_ADDRESSES));
    addresses.forEach((address, addressIndex) => {
      const addressPath = indexPath(addressesPath, addressIndex);
      if (addressType === 'IPv4' || addressType === 'IPv6') {
        const ipErrors = validateIp(addressPath, address);
        if (ipErrors.length > 0) errors.push(...ipErrors);
        else if ((addressType === 'IPv6') !== isIPv6String(address)) {
          errors.push(fieldInvalid(addressPath, address, `must be an ${addressType} address`));
        }
      } else if (addressType === 'FQDN') {
        errors.push(...validateFqdn(addressPath, address));
      }
    });
    const nodeName = optionalString(endpoint.nodeName);
    if (nodeName !== undefined) {
      for (const problem of nameIsDnsSubdomain(nodeName, false))
        errors.push(fieldInvalid(childPath(endpointPath, 'nodeName'), nodeName, problem));
    }
    const topologyPath = childPath(endpointPath, 'deprecatedTopology');
    const topology = stringMapOf(endpoint.deprecatedTopology);
    if (Object.keys(topology).length > MAX_TOPOLOGY_LABELS) {
      errors.push(fieldTooMany(topologyPath, Object.keys(topology).length, MAX_TOPOLOGY_LABELS));
    }
    errors.push(...validateLabels(topology, topologyPath));
    const hostname = optionalString(endpoint.hostname);
    if (hostname !== undefined) {
      for (const problem of isDns1123Label(hostname))
        errors.push(fieldInvalid(childPath(endpointPath, 'hostname'), hostname, problem));
    }
    const hints = objectOf(endpoint.hints);
    if (hints !== undefined) {
      const hintsPath = childPath(endpointPath, 'hints');
      errors.push(
        ...validateHintNames(
          hints.forZones,
          childPath(hintsPath, 'forZones'),
          MAX_ZONE_HINTS,
          isValidLabelValue,
        ),
        ...validateHintNames(hints.forNodes, childPath(hintsPath, 'forNodes'), MAX_NODE_HINTS, (name) =>
          nameIsDnsSubdomain(name, false),
        ),
      );
    }
  });
  return errors;
}

/** A hint list (`forZones`, `forNodes`): at most `max` entries, no name twice, each name valid. */
function validateHintNames(
  list: unknown,
  path: string,
  max: number,
  nameProblems: (name: string) => string[],
): FieldError[] {
  const hints = objectsOf(list);
  if (hints.length > max) return [fieldTooMany(path, hints.length, max)];
  const errors: FieldError[] = [];
  const names = new Set<string>();
  hints.forEach((hint, index) => {
    const namePath = childPath(indexPath(path, index), 'name');
    const name = stringOf(hint.name);
    if (names.has(name)) errors.push(fieldDuplicate(namePath, name));
    else names.add(name);
    for (const problem of nameProblems(name)) errors.push(fieldInvalid(namePath, name, problem));
  });
  return errors;
}

function validatePorts(ports: unknown): FieldError[] {
  const list = objectsOf(ports);
  if (list.length > MAX_PORTS) return [fieldTooMany('ports', list.length, MAX_PORTS)];
  const errors: FieldError[] = [];
  const names = new Set<string>();
  list.forEach((port, index) => {
    const portPath = indexPath('ports', index);
    const name = stringOf(port.name);
    if (name !== '')
      for (const problem of isDns1123Label(name))
        errors.push(fieldInvalid(childPath(portPath, 'name'), name, problem));
    if (names.has(name)) errors.push(fieldDuplicate(childPath(portPath, 'name'), name));
    else names.add(name);
    const protocol = optionalString(port.protocol);
    if (protocol === undefined) errors.push(fieldRequired(childPath(portPath, 'protocol'), ''));
    else if (!PROTOCOLS.includes(protocol))
      errors.push(fieldNotSupported(childPath(portPath, 'protocol'), protocol, PROTOCOLS));
    const appProtocol = optionalString(port.appProtocol);
    if (appProtocol !== undefined) {
      for (const problem of isQualifiedName(appProtocol))
        errors.push(fieldInvalid(childPath(portPath, 'appProtocol'), appProtocol, problem));
    }
  });
  return errors;
}

export function validateEndpointSlice(slice: KubeObject): FieldError[] {
  const errors = validateObjectMeta(slice.metadata, { namespaced: true, name: nameIsDnsSubdomain });
  const addressType = stringOf(slice.addressType);
  if (addressType === '') errors.push(fieldRequired('addressType', ''));
  else if (!ADDRESS_TYPES.includes(addressType))
    errors.push(fieldNotSupported('addressType', addressType, ADDRESS_TYPES));
  errors.push(...validateEndpoints(slice));
  errors.push(...validatePorts(slice.ports));
  return errors;
}

export function validateEndpointSliceUpdate(slice: KubeObject, old: KubeObject): FieldError[] {
  return [
    ...validateObjectMetaUpdate(slice.metadata, old.metadata),
    ...validateEndpointSlice(slice),
    ...validateImmutable(stringOf(slice.addressType), stringOf(old.addressType), 'addressType'),
  ];
}
