import type { CertificateRequest } from './certificate-requests.js';

/**
 * What a kubelet's client and serving certificate requests must look like (Kubernetes'
 * ValidateKubeletClientCSR / ValidateKubeletServingCSR): subject O=system:nodes and
 * CN=system:node:<name>, the right SANs, and exactly the usages kubelets ask for (with or
 * without key encipherment, which only RSA keys use). Each returns the problem, or undefined.
 */

const NODES_ORGANIZATION = 'system:nodes';
const NODE_NAME_PREFIX = 'system:node:';

const CLIENT_USAGES = ['client auth', 'digital signature', 'key encipherment'];
const SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];

export function kubeletClientRequestProblem(
  request: CertificateRequest,
  usages: readonly string[],
): string | undefined {
  if (!onlyNodesOrganization(request)) return 'subject organization is not system:nodes';
  if (request.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (request.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (request.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (request.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!request.commonName.startsWith(NODE_NAME_PREFIX))
    return 'subject common name does not begin with system:node:';
  if (!usagesMatch(usages, CLIENT_USAGES)) return `usages did not match [${CLIENT_USAGES.join(' ')}]`;
  return undefined;
}

export function kubeletServingRequestProblem(
  request: CertificateRequest,
  usages: readonly string[],
): string | undefined {
  if (!onlyNodesOrganization(request)) return 'subject organization is not system:nodes';
  if (request.dnsNames.length === 0 && request.ipAddresses.length === 0)
    return 'DNS or IP subjectAltName is required';
  if (request.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (request.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!usagesMatch(usages, SERVING_USAGES)) return `usages did not match [${SERVING_USAGES.join(' ')}]`;
  if (!request.commonName.startsWith(NODE_NAME_PREFIX))
    return 'subject common name does not begin with system:node:';
  return undefined;
}

function onlyNodesOrganization(request: CertificateRequest): boolean {
  return request.organizations.length === 1 && request.organizations[0] === NODES_ORGANIZATION;
}

/** The usages as a set equal `required`, or `required` without key encipherment. */
function usagesMatch(usages: readonly string[], required: readonly string[]): boolean {
  const set = new Set(usages);
  const equal = (wanted: readonly string[]) => set.size === wanted.length && wanted.every((u) => set.has(u));
  return equal(required) || equal(required.filter((u) => u !== 'key encipherment'));
}
