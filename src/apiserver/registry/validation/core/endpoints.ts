// Endpoints (the v1 kind; EndpointSlices are in discovery).
import type { KubeObject } from '../../../../api/object.js';
import {
  childPath,
  type FieldError,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
} from '../../../../api/selectors/index.js';
import { validateIp, validateNonSpecialIp } from '../ip.js';
import { type JsonObject, numberOf, objectsOf, optionalString, stringOf } from '../json.js';
import { isDns1123Label, isQualifiedName, isValidPortNumber, nameIsDnsSubdomain } from '../names.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { PROTOCOLS } from '../pod/container-parts.js';

function validateAddress(address: JsonObject, path: string): FieldError[] {
  const ip = stringOf(address.ip);
  const errors = validateIp(childPath(path, 'ip'), ip);
  const hostname = stringOf(address.hostname);
  if (hostname !== '') {
    for (const problem of isDns1123Label(hostname))
      errors.push(fieldInvalid(childPath(path, 'hostname'), hostname, problem));
  }
  const nodeName = optionalString(address.nodeName);
  if (nodeName !== undefined) {
    for (const problem of nameIsDnsSubdomain(nodeName, false))
      errors.push(fieldInvalid(childPath(path, 'nodeName'), nodeName, problem));
  }
  errors.push(...validateNonSpecialIp(childPath(path, 'ip'), ip));
  return errors;
}

function validatePort(port: JsonObject, requireName: boolean, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const name = stringOf(port.name);
  if (requireName && name === '') errors.push(fieldRequired(childPath(path, 'name'), ''));
  else if (name !== '')
    for (const problem of isDns1123Label(name))
      errors.push(fieldInvalid(childPath(path, 'name'), name, problem));
  const number = numberOf(port.port);
  for (const problem of isValidPortNumber(number))
    errors.push(fieldInvalid(childPath(path, 'port'), number, problem));
  const protocol = stringOf(port.protocol);
  if (protocol === '') errors.push(fieldRequired(childPath(path, 'protocol'), ''));
  else if (!PROTOCOLS.includes(protocol))
    errors.push(fieldNotSupported(childPath(path, 'protocol'), protocol, PROTOCOLS));
  const appProtocol = optionalString(port.appProtocol);
  if (appProtocol !== undefined) {
    for (const problem of isQualifiedName(appProtocol))
      errors.push(fieldInvalid(childPath(path, 'appProtocol'), appProtocol, problem));
  }
  return errors;
}

/** ValidateEndpoints. */
export function validateEndpoints(endpoints: KubeObject): FieldError[] {
  const errors = validateObjectMeta(endpoints.metadata, { namespaced: true, name: nameIsDnsSubdomain });
  objectsOf(endpoints.subsets).forEach((subset, index) => {
    const subsetPath = indexPath('subsets', index);
    const addresses = objectsOf(subset.addresses);
    const notReady = objectsOf(subset.notReadyAddresses);
    if (addresses.length === 0 && notReady.length === 0) {
      errors.push(fieldRequired(subsetPath, 'must specify `addresses` or `notReadyAddresses`'));
    }
    addresses.forEach((address, i) => {
      errors.push(...validateAddress(address, indexPath(childPath(subsetPath, 'addresses'), i)));
    });
    notReady.forEach((address, i) => {
      errors.push(...validateAddress(address, indexPath(childPath(subsetPath, 'notReadyAddresses'), i)));
    });
    const ports = objectsOf(subset.ports);
    ports.forEach((port, i) => {
      errors.push(...validatePort(port, ports.length > 1, indexPath(childPath(subsetPath, 'ports'), i)));
    });
  });
  return errors;
}

export function validateEndpointsUpdate(endpoints: KubeObject, old: KubeObject): FieldError[] {
  return [...validateObjectMetaUpdate(endpoints.metadata, old.metadata), ...validateEndpoints(endpoints)];
}
