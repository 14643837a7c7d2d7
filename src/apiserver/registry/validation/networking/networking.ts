// networking.k8s.io/v1: Ingresses, IngressClasses and NetworkPolicies.
import type { KubeObject } from '../../../../api/object.js';
import { utf8Length } from '../../../../api/selectors/go-text.js';
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  validateLabelSelectorObject,
} from '../../../../api/selectors/index.js';
import { GoRendered, goTypedStringSlice } from '../go-rendered.js';
import { parseCidrSloppy, parseIpSloppy, validateCidr } from '../ip.js';
import {
  fieldsOf,
  isSet,
  type JsonObject,
  numberOf,
  objectOf,
  objectsOf,
  optionalNumber,
  optionalString,
  stringMapOf,
  stringOf,
  stringsOf,
} from '../json.js';
import {
  isValidPortName,
  isValidPortNumber,
  isWildcardDns1123Subdomain,
  nameIsDns1035Label,
  nameIsDnsLabel,
  nameIsDnsSubdomain,
  nameIsPathSegment,
} from '../names.js';
import {
  fieldTooLong,
  validateImmutable,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../object-meta.js';

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];
const INVALID_PATH_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_PATH_SUFFIXES = ['/..', '/.'];
const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

function validateBackend(backend: JsonObject, path: string): FieldError[] {
  const resource = objectOf(backend.resource);
  const service = objectOf(backend.service);
  if (resource !== undefined && service !== undefined) {
    return [fieldInvalid(path, '', 'cannot set both resource and service backends')];
  }
  if (resource !== undefined) return validateTypedReference(resource, childPath(path, 'resource'));
  if (service === undefined) return [fieldInvalid(path, '', 'resource or service backend is required')];
  const errors: FieldError[] = [];
  const name = stringOf(service.name);
  const namePath = childPath(childPath(path, 'service'), 'name');
  if (name === '') errors.push(fieldRequired(namePath, ''));
  else
    for (const problem of nameIsDns1035Label(name, false)) errors.push(fieldInvalid(namePath, name, problem));
  const port = fieldsOf(service.port);
  const portName = stringOf(port.name);
  const portNumber = numberOf(port.number);
  const portPath = childPath(childPath(path, 'service'), 'port');
  if (portName !== '' && portNumber !== 0) {
    errors.push(fieldInvalid(path, '', 'cannot set both port name & port number'));
  } else if (portName !== '') {
    for (const problem of isValidPortName(portName))
      errors.push(fieldInvalid(childPath(portPath, 'name'), portName, problem));
  } else if (portNumber !== 0) {
    for (const problem of isValidPortNumber(portNumber))
      errors.push(fieldInvalid(childPath(portPath, 'number'), portNumber, problem));
  } else {
    errors.push(fieldRequired(path, 'port name or number is required'));
  }
  return errors;
}

function validateTypedReference(reference: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const apiGroup = optionalString(reference.apiGroup);
  if (apiGroup !== undefined) {
    for (const problem of nameIsDnsSubdomain(apiGroup, false))
      errors.push(fieldInvalid(childPath(path, 'apiGroup'), apiGroup, problem));
  }
  for (const key of ['kind', 'name'] as const) {
    const value = stringOf(reference[key]);
    if (value === '') errors.push(fieldRequired(childPath(path, key), `${key} is required`));
    else
      for (const problem of nameIsPathSegment(value, false))
        errors.push(fieldInvalid(childPath(path, key), value, problem));
  }
  return errors;
}

function validateHttpPath(entry: JsonObject, path: string): FieldError[] {
  const pathType = optionalString(entry.pathType);
  if (pathType === undefined)
    return [fieldRequired(childPath(path, 'pathType'), 'pathType must be specified')];
  const errors: FieldError[] = [];
  const value = stringOf(entry.path);
  const valuePath = childPath(path, 'path');
  switch (pathType) {
    case 'Exact':
    case 'Prefix':
      if (!value.startsWith('/')) errors.push(fieldInvalid(valuePath, value, 'must be an absolute path'));
      if (value !== '') {
        for (const sequence of INVALID_PATH_SEQUENCES) {
          if (value.includes(sequence))
            errors.push(fieldInvalid(valuePath, value, `must not contain '${sequence}'`));
        }
        for (const suffix of INVALID_PATH_SUFFIXES) {
          if (value.endsWith(suffix))
            errors.push(fieldInvalid(valuePath, value, `cannot end with '${suffix}'`));
        }
      }
      break;
    case 'ImplementationSpecific':
      if (value !== '' && !value.startsWith('/'))
        errors.push(fieldInvalid(valuePath, value, 'must be an absolute path'));
      break;
    default:
      errors.push(fieldNotSupported(childPath(path, 'pathType'), pathType, PATH_TYPES));
  }
  errors.push(...validateBackend(fieldsOf(entry.backend), childPath(path, 'backend')));
  return errors;
}

interface IngressOptions {
  /** An invalid TLS secret name was stored before: keep accepting such names. */
  allowInvalidSecretName: boolean;
  /** A wildcard rule with invalid paths was stored before: keep accepting such rules. */
  allowInvalidWildcardHostRule: boolean;
}

const STRICT: IngressOptions = { allowInvalidSecretName: false, allowInvalidWildcardHostRule: false };

function validateRuleHttp(rule: JsonObject, rulePath: string): FieldError[] {
  const http = objectOf(rule.http);
  if (http === undefined) return [];
  const errors: FieldError[] = [];
  const httpPath = childPath(rulePath, 'http');
  const paths = objectsOf(http.paths);
  if (paths.length === 0) errors.push(fieldRequired(childPath(httpPath, 'paths'), ''));
  paths.forEach((entry, pathIndex) => {
    errors.push(...validateHttpPath(entry, indexPath(childPath(httpPath, 'paths'), pathIndex)));
  });
  return errors;
}

function optionsFromStored(old: KubeObject): IngressOptions {
  const spec = fieldsOf(old.spec);
  return {
    allowInvalidSecretName: objectsOf(spec.tls).some((tls) => {
      const name = stringOf(tls.secretName);
      return name !== '' && nameIsDnsSubdomain(name, false).length > 0;
    }),
    allowInvalidWildcardHostRule: objectsOf(spec.rules).some(
      (rule) => stringOf(rule.host).includes('*') && validateRuleHttp(rule, '').length > 0,
    ),
  };
}

function validateIngressSpec(spec: JsonObject, options: IngressOptions): FieldError[] {
  const errors: FieldError[] = [];
  const rules = objectsOf(spec.rules);
  if (rules.length === 0 && !isSet(spec.defaultBackend)) {
    const rendered = new GoRendered(
      Array.isArray(spec.rules) ? '[]networking.IngressRule{}' : '[]networking.IngressRule(nil)',
    );
    errors.push(fieldInvalid('spec', rendered, 'either `defaultBackend` or `rules` must be specified'));
  }
  if (isSet(spec.defaultBackend))
    errors.push(...validateBackend(fieldsOf(spec.defaultBackend), 'spec.defaultBackend'));
  rules.forEach((rule, index) => {
    const rulePath = indexPath('spec.rules', index);
    const host = stringOf(rule.host);
    if (host !== '') {
      if (parseIpSloppy(host) !== undefined)
        errors.push(fieldInvalid(childPath(rulePath, 'host'), host, 'must be a DNS name, not an IP address'));
      const problems = host.includes('*')
        ? isWildcardDns1123Subdomain(host)
        : nameIsDnsSubdomain(host, false);
      for (const problem of problems) errors.push(fieldInvalid(childPath(rulePath, 'host'), host, problem));
    }
    if (!host.includes('*') || !options.allowInvalidWildcardHostRule)
      errors.push(...validateRuleHttp(rule, rulePath));
  });
  objectsOf(spec.tls).forEach((tls, index) => {
    const tlsPath = indexPath('spec.tls', index);
    stringsOf(tls.hosts).forEach((host, hostIndex) => {
      const problems = host.includes('*')
        ? isWildcardDns1123Subdomain(host)
        : nameIsDnsSubdomain(host, false);
      for (const problem of problems)
        errors.push(fieldInvalid(indexPath(childPath(tlsPath, 'hosts'), hostIndex), host, problem));
    });
    const secretName = stringOf(tls.secretName);
    if (secretName !== '' && !options.allowInvalidSecretName) {
      for (const problem of nameIsDnsSubdomain(secretName, false))
        errors.push(fieldInvalid(childPath(tlsPath, 'secretName'), secretName, problem));
    }
  });
  const className = optionalString(spec.ingressClassName);
  if (className !== undefined) {
    for (const problem of nameIsDnsSubdomain(className, false))
      errors.push(fieldInvalid('spec.ingressClassName', className, problem));
  }
  return errors;
}

/** ValidateIngressCreate. */
export function validateIngress(ingress: KubeObject): FieldError[] {
  const spec = fieldsOf(ingress.spec);
  const errors = [
    ...validateObjectMeta(ingress.metadata, { namespaced: true, name: nameIsDnsSubdomain }),
    ...validateIngressSpec(spec, STRICT),
  ];
  const annotations = stringMapOf(fieldsOf(ingress.metadata).annotations);
  const className = optionalString(spec.ingressClassName);
  if (
    Object.hasOwn(annotations, INGRESS_CLASS_ANNOTATION) &&
    className !== undefined &&
    annotations[INGRESS_CLASS_ANNOTATION] !== className
  ) {
    errors.push(
      fieldInvalid(
        `annotations.${INGRESS_CLASS_ANNOTATION}`,
        annotations[INGRESS_CLASS_ANNOTATION],
        'must match `ingressClassName` when both are specified',
      ),
    );
  }
  return errors;
}

/** ValidateIngressUpdate (invalid TLS secret names and wildcard rules stored earlier stay accepted). */
export function validateIngressUpdate(ingress: KubeObject, old: KubeObject): FieldError[] {
  return [
    ...validateObjectMetaUpdate(ingress.metadata, old.metadata),
    ...validateObjectMeta(ingress.metadata, { namespaced: true, name: nameIsDnsSubdomain }),
    ...validateIngressSpec(fieldsOf(ingress.spec), optionsFromStored(old)),
  ];
}

function validateIngressClassSpec(spec: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const controller = stringOf(spec.controller);
  if (utf8Length(controller) > 250) errors.push(fieldTooLong('spec.controller', 250));
  if (controller === '') errors.push(fieldRequired('spec.controller', ''));
  else {
    const slash = controller.indexOf('/');
    if (slash <= 0 || slash === controller.length - 1) {
      errors.push(
        fieldInvalid('spec.controller', controller, 'must be a domain-prefixed path (such as "acme.io/foo")'),
      );
    } else {
      const host = controller.slice(0, slash);
      for (const problem of nameIsDnsSubdomain(host, false))
        errors.push(fieldInvalid('spec.controller', host, problem));
    }
  }
  const parameters = objectOf(spec.parameters);
  if (parameters !== undefined) {
    errors.push(...validateTypedReference(parameters, 'spec.parameters'));
    const scope = optionalString(parameters.scope);
    if (scope === undefined) {
      errors.push(fieldRequired('spec.parameters.scope', ''));
    } else if (scope !== 'Cluster' && scope !== 'Namespace') {
      errors.push(fieldNotSupported('spec.parameters.scope', scope, ['Cluster', 'Namespace']));
    } else {
      const namespace = optionalString(parameters.namespace);
      if (scope === 'Namespace') {
        if (namespace === undefined)
          errors.push(fieldRequired('spec.parameters.namespace', "`parameters.scope` is set to 'Namespace'"));
        else
          for (const problem of nameIsDnsLabel(namespace, false))
            errors.push(fieldInvalid('spec.parameters.namespace', namespace, problem));
      }
      if (scope === 'Cluster' && namespace !== undefined) {
        errors.push(fieldForbidden('spec.parameters.namespace', "`parameters.scope` is set to 'Cluster'"));
      }
    }
  }
  return errors;
}

export function validateIngressClass(ingressClass: KubeObject): FieldError[] {
  return [
    ...validateObjectMeta(ingressClass.metadata, { namespaced: false, name: nameIsDnsSubdomain }),
    ...validateIngressClassSpec(fieldsOf(ingressClass.spec)),
  ];
}

export function validateIngressClassUpdate(ingressClass: KubeObject, old: KubeObject): FieldError[] {
  return [
    ...validateObjectMetaUpdate(ingressClass.metadata, old.metadata),
    ...validateImmutable(
      stringOf(fieldsOf(ingressClass.spec).controller),
      stringOf(fieldsOf(old.spec).controller),
      'spec.controller',
    ),
    ...validateIngressClass(ingressClass),
  ];
}

function validatePolicyPort(port: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const protocol = optionalString(port.protocol);
  if (protocol !== undefined && !['TCP', 'UDP', 'SCTP'].includes(protocol)) {
    errors.push(fieldNotSupported(childPath(path, 'protocol'), protocol, ['TCP', 'UDP', 'SCTP']));
  }
  const endPort = optionalNumber(port.endPort);
  if (isSet(port.port)) {
    if (typeof port.port === 'number') {
      for (const problem of isValidPortNumber(port.port))
        errors.push(fieldInvalid(childPath(path, 'port'), port.port, problem));
      if (endPort !== undefined) {
        if (endPort < port.port)
          errors.push(
            fieldInvalid(childPath(path, 'endPort'), port.port, 'must be greater than or equal to `port`'),
          );
        for (const problem of isValidPortNumber(endPort))
          errors.push(fieldInvalid(childPath(path, 'endPort'), endPort, problem));
      }
    } else {
      if (endPort !== undefined)
        errors.push(
          fieldInvalid(
            childPath(path, 'endPort'),
            endPort,
            'may not be specified when `port` is non-numeric',
          ),
        );
      const name = stringOf(port.port);
      for (const problem of isValidPortName(name))
        errors.push(fieldInvalid(childPath(path, 'port'), name, problem));
    }
  } else if (endPort !== undefined) {
    errors.push(
      fieldInvalid(childPath(path, 'endPort'), endPort, 'may not be specified when `port` is not specified'),
    );
  }
  return errors;
}

function validateIpBlock(block: JsonObject, path: string): FieldError[] {
  const cidr = stringOf(block.cidr);
  if (cidr === '') return [fieldRequired(childPath(path, 'cidr'), '')];
  const errors = validateCidr(childPath(path, 'cidr'), cidr);
  const network = parseCidrSloppy(cidr);
  if (network === undefined) return errors;
  stringsOf(block.except).forEach((except, index) => {
    const exceptPath = indexPath(childPath(path, 'except'), index);
    errors.push(...validateCidr(exceptPath, except));
    const inner = parseCidrSloppy(except);
    if (inner === undefined) return;
    const bits = (parsed: typeof inner) => (parsed.v4 ? parsed.prefixLength + 96 : parsed.prefixLength);
    const outerBits = bits(network);
    let contained = inner.network.length === network.network.length;
    for (let bit = 0; bit < outerBits && contained; bit++) {
      const mask = 0x80 >> (bit & 7);
      if ((inner.network[bit >> 3]! & mask) !== (network.network[bit >> 3]! & mask)) contained = false;
    }
    if (!contained || outerBits >= bits(inner))
      errors.push(fieldInvalid(exceptPath, except, 'must be a strict subset of `cidr`'));
  });
  return errors;
}

function validatePeer(peer: JsonObject, path: string): FieldError[] {
  const errors: FieldError[] = [];
  let count = 0;
  for (const key of ['podSelector', 'namespaceSelector'] as const) {
    const selector = objectOf(peer[key]);
    if (selector === undefined) continue;
    count++;
    errors.push(...validateLabelSelectorObject(selector, childPath(path, key)));
  }
  const block = objectOf(peer.ipBlock);
  if (block !== undefined) {
    count++;
    errors.push(...validateIpBlock(block, childPath(path, 'ipBlock')));
  }
  if (count === 0) errors.push(fieldRequired(path, 'must specify a peer'));
  else if (count > 1 && block !== undefined)
    errors.push(fieldForbidden(path, 'may not specify both ipBlock and another peer'));
  return errors;
}

function validateNetworkPolicySpec(spec: JsonObject): FieldError[] {
  const errors = validateLabelSelectorObject(fieldsOf(spec.podSelector), 'spec.podSelector');
  for (const [direction, peersKey] of [
    ['ingress', 'from'],
    ['egress', 'to'],
  ] as const) {
    objectsOf(spec[direction]).forEach((rule, index) => {
      const rulePath = indexPath(`spec.${direction}`, index);
      objectsOf(rule.ports).forEach((port, portIndex) => {
        errors.push(...validatePolicyPort(port, indexPath(childPath(rulePath, 'ports'), portIndex)));
      });
      objectsOf(rule[peersKey]).forEach((peer, peerIndex) => {
        errors.push(...validatePeer(peer, indexPath(childPath(rulePath, peersKey), peerIndex)));
      });
    });
  }
  const types = stringsOf(spec.policyTypes);
  if (types.length > 2) {
    errors.push(
      fieldInvalid(
        'spec.policyTypes',
        goTypedStringSlice('networking.PolicyType', spec.policyTypes),
        'may not specify more than two policyTypes',
      ),
    );
    return errors;
  }
  types.forEach((type, index) => {
    if (type !== 'Ingress' && type !== 'Egress')
      errors.push(fieldNotSupported(indexPath('spec.policyTypes', index), type, ['Ingress', 'Egress']));
  });
  return errors;
}

export function validateNetworkPolicy(policy: KubeObject): FieldError[] {
  return [
    ...validateObjectMeta(policy.metadata, { namespaced: true, name: nameIsDnsSubdomain }),
    ...validateNetworkPolicySpec(fieldsOf(policy.spec)),
  ];
}

export function validateNetworkPolicyUpdate(policy: KubeObject, old: KubeObject): FieldError[] {
  return [
    ...validateObjectMetaUpdate(policy.metadata, old.metadata),
    ...validateNetworkPolicySpec(fieldsOf(policy.spec)),
  ];
}
