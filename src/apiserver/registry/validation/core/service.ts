// Services (ValidateService / ValidateServiceUpdate).
import type { KubeObject } from '../../../../api/object.js';
import {
  childPath,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
} from '../../../../api/selectors/index.js';
import { GoRendered, goTypedStringSlice } from '../go-rendered.js';
import {
  isIPv4,
  isIPv6String,
  parseIpSloppy,
  validateCidr,
  validateIp,
  validateNonSpecialIp,
} from '../ip.js';
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
  isDns1123Label,
  isQualifiedName,
  isValidPortNumber,
  nameIsDns1035Label,
  nameIsDnsSubdomain,
} from '../names.js';
import {
  fieldDuplicate,
  validateLabels,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../object-meta.js';
import { PROTOCOLS, validatePortNumberOrName } from '../pod/container-parts.js';

const SESSION_AFFINITIES = ['ClientIP', 'None'];
const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const TRAFFIC_DISTRIBUTIONS = ['PreferClose', 'PreferSameZone', 'PreferSameNode'];
const TRAFFIC_POLICIES = ['Cluster', 'Local'];
const IP_FAMILIES = ['IPv4', 'IPv6'];
const IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;
const TOPOLOGY_HINTS_ANNOTATION = 'service.kubernetes.io/topology-aware-hints';
const TOPOLOGY_MODE_ANNOTATION = 'service.kubernetes.io/topology-mode';
const SOURCE_RANGES_ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges';

function isHeadless(spec: JsonObject): boolean {
  const ips = stringsOf(spec.clusterIPs);
  return ips.length === 1 && ips[0] === 'None';
}

/** The %#v Kubernetes prints for the (protocol, port) key of a duplicated port. */
function goServicePortKey(protocol: string, port: number): GoRendered {
  return new GoRendered(
    `core.ServicePort{Name:"", Protocol:"${protocol}", AppProtocol:(*string)(nil), Port:${port}, ` +
      'TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
  );
}

function validateServicePort(
  port: JsonObject,
  requireName: boolean,
  names: Set<string>,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  const name = stringOf(port.name);
  if (requireName && name === '') errors.push(fieldRequired(childPath(path, 'name'), ''));
  else if (name !== '') {
    for (const problem of isDns1123Label(name))
      errors.push(fieldInvalid(childPath(path, 'name'), name, problem));
    if (names.has(name)) errors.push(fieldDuplicate(childPath(path, 'name'), name));
    else names.add(name);
  }
  const number = numberOf(port.port);
  for (const problem of isValidPortNumber(number))
    errors.push(fieldInvalid(childPath(path, 'port'), number, problem));
  const protocol = stringOf(port.protocol);
  if (protocol === '') errors.push(fieldRequired(childPath(path, 'protocol'), ''));
  else if (!PROTOCOLS.includes(protocol))
    errors.push(fieldNotSupported(childPath(path, 'protocol'), protocol, PROTOCOLS));
  errors.push(...validatePortNumberOrName(port.targetPort, childPath(path, 'targetPort')));
  const appProtocol = optionalString(port.appProtocol);
  if (appProtocol !== undefined) {
    for (const problem of isQualifiedName(appProtocol))
      errors.push(fieldInvalid(childPath(path, 'appProtocol'), appProtocol, problem));
  }
  return errors;
}

function validateClientIpAffinity(config: unknown, path: string): FieldError[] {
  const when = 'when session affinity type is ClientIP';
  const fields = objectOf(config);
  if (fields === undefined) return [fieldRequired(path, when)];
  const clientIP = objectOf(fields.clientIP);
  if (clientIP === undefined) return [fieldRequired(childPath(path, 'clientIP'), when)];
  const timeoutPath = childPath(childPath(path, 'clientIP'), 'timeoutSeconds');
  const timeout = optionalNumber(clientIP.timeoutSeconds);
  if (timeout === undefined) return [fieldRequired(timeoutPath, when)];
  if (timeout <= 0 || timeout > MAX_CLIENT_IP_AFFINITY_SECONDS) {
    return [
      fieldInvalid(
        timeoutPath,
        timeout,
        `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY_SECONDS}`,
      ),
    ];
  }
  return [];
}

/** ValidateServiceClusterIPsRelatedFields. */
export function validateClusterIpFields(spec: JsonObject): FieldError[] {
  if (stringOf(spec.type) === 'ExternalName') return [];
  const errors: FieldError[] = [];
  const clusterIP = stringOf(spec.clusterIP);
  const clusterIPs = stringsOf(spec.clusterIPs);
  const families = stringsOf(spec.ipFamilies);
  const ipsPath = 'spec.clusterIPs';
  const renderedIPs = () => clusterIPs;
  if (clusterIP !== '') {
    if (clusterIPs.length === 0) errors.push(fieldRequired(ipsPath, ''));
    else if (clusterIPs[0] !== clusterIP)
      errors.push(fieldInvalid(ipsPath, renderedIPs(), 'first value must match `clusterIP`'));
  } else if (clusterIPs.length !== 0) {
    errors.push(fieldInvalid(ipsPath, renderedIPs(), 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<string>();
  families.forEach((family, index) => {
    const familyPath = indexPath('spec.ipFamilies', index);
    if (!IP_FAMILIES.includes(family)) errors.push(fieldNotSupported(familyPath, family, IP_FAMILIES));
    if (seen.has(family)) errors.push(fieldDuplicate(familyPath, family));
    seen.add(family);
  });
  const policy = optionalString(spec.ipFamilyPolicy);
  if (policy !== undefined && !IP_FAMILY_POLICIES.includes(policy)) {
    errors.push(fieldNotSupported('spec.ipFamilyPolicy', policy, IP_FAMILY_POLICIES));
  }
  let invalidIPs = false;
  clusterIPs.forEach((ip, index) => {
    if (index === 0 && ip === 'None') {
      if (clusterIPs.length > 1) {
        invalidIPs = true;
        errors.push(fieldInvalid(ipsPath, renderedIPs(), "'None' must be the first and only value"));
      }
      return;
    }
    const ipErrors = validateIp(indexPath(ipsPath, index), ip);
    if (ipErrors.length > 0) invalidIPs = true;
    errors.push(...ipErrors);
  });
  if (clusterIPs.length > 2)
    errors.push(fieldInvalid(ipsPath, renderedIPs(), 'may only hold up to 2 values'));
  if (invalidIPs) return errors;
  if (clusterIPs.length > 1) {
    const parsed = clusterIPs.map(parseIpSloppy);
    const v4 = parsed.filter((ip) => ip !== undefined && isIPv4(ip)).length;
    const dualStack = clusterIPs.length >= 2 && v4 >= 1 && v4 < clusterIPs.length;
    if (!dualStack)
      errors.push(fieldInvalid(ipsPath, renderedIPs(), 'may specify no more than one IP for each IP family'));
  }
  if (!isHeadless(spec) && clusterIPs.length > 0 && families.length > 0) {
    clusterIPs.forEach((ip, index) => {
      if (index > families.length - 1) return;
      if (families[index] === 'IPv4' && isIPv6String(ip)) {
        errors.push(
          fieldInvalid(
            indexPath(ipsPath, index),
            ip,
            `expected an IPv4 value as indicated by \`ipFamilies[${index}]\``,
          ),
        );
      }
      if (families[index] === 'IPv6' && !isIPv6String(ip)) {
        errors.push(
          fieldInvalid(
            indexPath(ipsPath, index),
            ip,
            `expected an IPv6 value as indicated by \`ipFamilies[${index}]\``,
          ),
        );
      }
    });
  }
  return errors;
}

function validateLoadBalancerClass(spec: JsonObject, old: JsonObject | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const className = optionalString(spec.loadBalancerClass);
  const isLoadBalancer = stringOf(spec.type) === 'LoadBalancer';
  if (old !== undefined && isLoadBalancer && stringOf(old.type) === 'LoadBalancer') {
    if (className !== optionalString(old.loadBalancerClass)) {
      errors.push(fieldInvalid('spec.loadBalancerClass', className ?? null, 'may not change once set'));
    }
  }
  if (isLoadBalancer) {
    if (className !== undefined) {
      for (const problem of isQualifiedName(className))
        errors.push(fieldInvalid('spec.loadBalancerClass', className, problem));
    }
  } else if (className !== undefined) {
    errors.push(fieldForbidden('spec.loadBalancerClass', "may only be used when `type` is 'LoadBalancer'"));
  }
  return errors;
}

/** needsExternalTrafficPolicy: only node ports carry external traffic. */
function needsExternalTrafficPolicy(spec: JsonObject): boolean {
  const type = stringOf(spec.type);
  return type === 'LoadBalancer' || type === 'NodePort';
}

function needsHealthCheck(spec: JsonObject): boolean {
  return stringOf(spec.type) === 'LoadBalancer' && stringOf(spec.externalTrafficPolicy) === 'Local';
}

function validateTrafficPolicies(spec: JsonObject): FieldError[] {
  const errors: FieldError[] = [];
  const external = stringOf(spec.externalTrafficPolicy);
  if (!needsExternalTrafficPolicy(spec)) {
    if (external !== '') {
      errors.push(
        fieldInvalid(
          'spec.externalTrafficPolicy',
          external,
          "may only be set when `type` is 'NodePort' or 'LoadBalancer'",
        ),
      );
    }
  } else if (external === '') {
    errors.push(fieldRequired('spec.externalTrafficPolicy', ''));
  } else if (!TRAFFIC_POLICIES.includes(external)) {
    errors.push(fieldNotSupported('spec.externalTrafficPolicy', external, TRAFFIC_POLICIES));
  }
  const healthCheckNodePort = numberOf(spec.healthCheckNodePort);
  if (!needsHealthCheck(spec)) {
    if (healthCheckNodePort !== 0) {
      errors.push(
        fieldInvalid(
          'spec.healthCheckNodePort',
          healthCheckNodePort,
          "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
        ),
      );
    }
  } else if (healthCheckNodePort === 0) {
    errors.push(fieldRequired('spec.healthCheckNodePort', ''));
  } else {
    for (const problem of isValidPortNumber(healthCheckNodePort)) {
      errors.push(fieldInvalid('spec.healthCheckNodePort', healthCheckNodePort, problem));
    }
  }
  const internal = optionalString(spec.internalTrafficPolicy);
  if (internal === undefined) {
    if (['NodePort', 'LoadBalancer', 'ClusterIP'].includes(stringOf(spec.type))) {
      errors.push(fieldRequired('spec.internalTrafficPolicy', ''));
    }
  } else if (!TRAFFIC_POLICIES.includes(internal)) {
    errors.push(fieldNotSupported('spec.internalTrafficPolicy', internal, TRAFFIC_POLICIES));
  }
  // PreferSameZone and PreferSameNode: the PreferSameTrafficDistribution gate (alpha in 1.33, on
  // by default from 1.34) is on here; the proxy honours the node hints they lead to.
  const distribution = optionalString(spec.trafficDistribution);
  if (distribution !== undefined && !TRAFFIC_DISTRIBUTIONS.includes(distribution)) {
    errors.push(fieldNotSupported('spec.trafficDistribution', distribution, TRAFFIC_DISTRIBUTIONS));
  }
  return errors;
}

/** ValidateService. */
export function validateService(service: KubeObject): FieldError[] {
  const spec = fieldsOf(service.spec);
  const annotations = stringMapOf(fieldsOf(service.metadata).annotations);
  const errors = validateObjectMeta(service.metadata, { namespaced: true, name: nameIsDns1035Label });
  if (
    Object.hasOwn(annotations, TOPOLOGY_MODE_ANNOTATION) &&
    Object.hasOwn(annotations, TOPOLOGY_HINTS_ANNOTATION) &&
    annotations[TOPOLOGY_MODE_ANNOTATION] !== annotations[TOPOLOGY_HINTS_ANNOTATION]
  ) {
    errors.push(
      fieldInvalid(
        indexPath('metadata.annotations', TOPOLOGY_MODE_ANNOTATION),
        annotations[TOPOLOGY_MODE_ANNOTATION],
        `must match annotations[${TOPOLOGY_HINTS_ANNOTATION}] when both are specified`,
      ),
    );
  }
  const type = stringOf(spec.type);
  const ports = objectsOf(spec.ports);
  const headless = isHeadless(spec);
  if (ports.length === 0 && !headless && type !== 'ExternalName')
    errors.push(fieldRequired('spec.ports', ''));
  const clusterIPs = stringsOf(spec.clusterIPs);
  switch (type) {
    case 'LoadBalancer':
    case 'NodePort':
      if (headless) {
        errors.push(
          fieldInvalid('spec.clusterIPs[0]', clusterIPs[0], `may not be set to 'None' for ${type} services`),
        );
      }
      break;
    case 'ExternalName': {
      if (clusterIPs.length > 0)
        errors.push(fieldForbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
      if (stringsOf(spec.ipFamilies).length > 0) {
        errors.push(fieldForbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
      }
      if (isSet(spec.ipFamilyPolicy))
        errors.push(fieldForbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
      const externalName = stringOf(spec.externalName);
      const cname = externalName.endsWith('.') ? externalName.slice(0, -1) : externalName;
      if (cname !== '') {
        for (const problem of nameIsDnsSubdomain(cname, false))
          errors.push(fieldInvalid('spec.externalName', cname, problem));
      } else {
        errors.push(fieldRequired('spec.externalName', ''));
      }
      break;
    }
  }
  const portNames = new Set<string>();
  ports.forEach((port, index) => {
    errors.push(...validateServicePort(port, ports.length > 1, portNames, indexPath('spec.ports', index)));
  });
  if (isSet(spec.selector)) errors.push(...validateLabels(spec.selector, 'spec.selector'));
  const affinity = stringOf(spec.sessionAffinity);
  if (affinity === '') errors.push(fieldRequired('spec.sessionAffinity', ''));
  else if (!SESSION_AFFINITIES.includes(affinity)) {
    errors.push(fieldNotSupported('spec.sessionAffinity', affinity, SESSION_AFFINITIES));
  }
  if (affinity === 'ClientIP') {
    errors.push(...validateClientIpAffinity(spec.sessionAffinityConfig, 'spec.sessionAffinityConfig'));
  } else if (affinity === 'None' && isSet(spec.sessionAffinityConfig)) {
    errors.push(
      fieldForbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'),
    );
  }
  errors.push(...validateClusterIpFields(spec));
  stringsOf(spec.externalIPs).forEach((ip, index) => {
    const ipPath = indexPath('spec.externalIPs', index);
    const ipErrors = validateIp(ipPath, ip);
    errors.push(...(ipErrors.length > 0 ? ipErrors : validateNonSpecialIp(ipPath, ip)));
  });
  if (type === '') errors.push(fieldRequired('spec.type', ''));
  else if (!SERVICE_TYPES.includes(type)) errors.push(fieldNotSupported('spec.type', type, SERVICE_TYPES));
  if (type === 'ClusterIP') {
    ports.forEach((port, index) => {
      if (numberOf(port.nodePort) !== 0) {
        errors.push(
          fieldForbidden(
            childPath(indexPath('spec.ports', index), 'nodePort'),
            "may not be used when `type` is 'ClusterIP'",
          ),
        );
      }
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((port, index) => {
    const nodePort = numberOf(port.nodePort);
    if (nodePort === 0) return;
    const key = `${stringOf(port.protocol)}/${nodePort}`;
    if (nodePorts.has(key))
      errors.push(fieldDuplicate(childPath(indexPath('spec.ports', index), 'nodePort'), nodePort));
    nodePorts.add(key);
  });
  const portKeys = new Set<string>();
  ports.forEach((port, index) => {
    const key = `${stringOf(port.protocol)}/${numberOf(port.port)}`;
    if (portKeys.has(key)) {
      errors.push(
        fieldDuplicate(
          indexPath('spec.ports', index),
          goServicePortKey(stringOf(port.protocol), numberOf(port.port)),
        ),
      );
    }
    portKeys.add(key);
  });
  const ranges = stringsOf(spec.loadBalancerSourceRanges);
  const lbOnly = "may only be used when `type` is 'LoadBalancer'";
  if (ranges.length > 0) {
    const rangesPath = 'spec.LoadBalancerSourceRanges';
    if (type !== 'LoadBalancer') errors.push(fieldForbidden(rangesPath, lbOnly));
    ranges.forEach((range, index) => {
      errors.push(...validateCidr(indexPath(rangesPath, index), range.trim()));
    });
  } else if (Object.hasOwn(annotations, SOURCE_RANGES_ANNOTATION)) {
    const annotationPath = indexPath('metadata.annotations', SOURCE_RANGES_ANNOTATION);
    if (type !== 'LoadBalancer') errors.push(fieldForbidden(annotationPath, lbOnly));
    const value = annotations[SOURCE_RANGES_ANNOTATION]!.trim();
    if (value !== '')
      for (const range of value.split(',')) errors.push(...validateCidr(annotationPath, range.trim()));
  }
  if (isSet(spec.allocateLoadBalancerNodePorts) && type !== 'LoadBalancer') {
    errors.push(fieldForbidden('spec.allocateLoadBalancerNodePorts', lbOnly));
  }
  if (type === 'LoadBalancer' && !isSet(spec.allocateLoadBalancerNodePorts)) {
    // Kubernetes reports this one without the `spec.` prefix.
    errors.push(fieldRequired('allocateLoadBalancerNodePorts', ''));
  }
  errors.push(...validateLoadBalancerClass(spec, undefined));
  errors.push(...validateTrafficPolicies(spec));
  return errors;
}

function validateClusterIpChanges(spec: JsonObject, old: JsonObject): FieldError[] {
  if (stringOf(spec.type) === 'ExternalName' || stringOf(old.type) === 'ExternalName') return [];
  if (isHeadless(spec) && isHeadless(old)) return [];
  const errors: FieldError[] = [];
  const next = stringsOf(spec.clusterIPs);
  const previous = stringsOf(old.clusterIPs);
  if (previous.length === next.length) {
    previous.forEach((ip, index) => {
      if (ip !== next[index])
        errors.push(fieldInvalid(indexPath('spec.clusterIPs', index), next, 'may not change once set'));
    });
  } else if (previous.length > next.length) {
    if (next.length === 0)
      errors.push(fieldInvalid('spec.clusterIPs[0]', next, 'primary clusterIP can not be unset'));
    if (previous.length > 0 && next.length > 0 && next[0] !== previous[0]) {
      errors.push(fieldInvalid('spec.clusterIPs[0]', next, 'may not change once set'));
    }
    if (next.length === 1 && stringOf(spec.ipFamilyPolicy) !== 'SingleStack') {
      errors.push(
        fieldInvalid(
          'spec.ipFamilyPolicy',
          optionalString(spec.ipFamilyPolicy) ?? null,
          "must be set to 'SingleStack' when releasing the secondary clusterIP",
        ),
      );
    }
  } else if (previous.length > 0 && next[0] !== previous[0]) {
    errors.push(fieldInvalid('spec.clusterIPs[0]', next, 'may not change once set'));
  }
  return errors;
}

function validateIpFamilyChanges(spec: JsonObject, old: JsonObject): FieldError[] {
  if (stringOf(spec.type) === 'ExternalName' || stringOf(old.type) === 'ExternalName') return [];
  if (isHeadless(spec) !== isHeadless(old) || isHeadless(spec)) return [];
  const errors: FieldError[] = [];
  const next = stringsOf(spec.ipFamilies);
  const previous = stringsOf(old.ipFamilies);
  const families = goTypedStringSlice('core.IPFamily', spec.ipFamilies);
  if (previous.length === next.length) {
    previous.forEach((family, index) => {
      if (family !== next[index])
        errors.push(fieldInvalid('spec.ipFamilies[0]', families, 'may not change once set'));
    });
  } else if (previous.length > next.length) {
    if (stringsOf(spec.clusterIPs).length === 0) {
      errors.push(fieldInvalid('spec.ipFamilies[0]', families, 'primary ipFamily can not be unset'));
    }
    if (next.length > 0 && next[0] !== previous[0]) {
      errors.push(fieldInvalid('spec.ipFamilies[0]', stringsOf(spec.clusterIPs), 'may not change once set'));
    }
    if (next.length === 1 && stringOf(spec.ipFamilyPolicy) !== 'SingleStack') {
      errors.push(
        fieldInvalid(
          'spec.ipFamilyPolicy',
          optionalString(spec.ipFamilyPolicy) ?? null,
          "must be set to 'SingleStack' when releasing the secondary ipFamily",
        ),
      );
    }
  } else if (previous.length > 0 && next.length > 0 && next[0] !== previous[0]) {
    errors.push(fieldInvalid('spec.ipFamilies[0]', stringsOf(spec.clusterIPs), 'may not change once set'));
  }
  return errors;
}

/** ValidateServiceUpdate. */
export function validateServiceUpdate(service: KubeObject, old: KubeObject): FieldError[] {
  const spec = fieldsOf(service.spec);
  const oldSpec = fieldsOf(old.spec);
  const errors = validateObjectMetaUpdate(service.metadata, old.metadata);
  errors.push(...validateClusterIpChanges(spec, oldSpec));
  errors.push(...validateIpFamilyChanges(spec, oldSpec));
  errors.push(...validateLoadBalancerClass(spec, oldSpec));
  if (
    needsHealthCheck(oldSpec) &&
    needsHealthCheck(spec) &&
    numberOf(spec.healthCheckNodePort) !== numberOf(oldSpec.healthCheckNodePort)
  ) {
    errors.push(fieldForbidden('spec.healthCheckNodePort', 'field is immutable'));
  }
  errors.push(...validateService(service));
  return errors;
}
