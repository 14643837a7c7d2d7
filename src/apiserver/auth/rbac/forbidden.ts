/**
 * The texts of kube-apiserver's 403 for a request no authorizer allowed
 * (responsewriters.ForbiddenStatusError with apierrors.NewForbidden around it).
 */
import { goQuote } from '../../../api/selectors/go-text.js';
import type { Attributes } from './attributes.js';

/**
 * `User "u" cannot list resource "pods" in API group "" in the namespace "default"`; a
 * subresource shows as `pods/log`; the object's name is not part of this text (the Status
 * message puts it in front: `pods "web" is forbidden: ...`).
 */
export function forbiddenMessage(attributes: Attributes): string {
  const user = goQuote(attributes.user.name);
  if (!attributes.isResourceRequest) {
    return `User ${user} cannot ${attributes.verb} path ${goQuote(attributes.path)}`;
  }
  const resource =
    attributes.subresource === '' ? attributes.resource : `${attributes.resource}/${attributes.subresource}`;
  const group = goQuote(attributes.apiGroup);
  const what = `User ${user} cannot ${attributes.verb} resource ${goQuote(resource)} in API group ${group}`;
  if (attributes.namespace !== '') return `${what} in the namespace ${goQuote(attributes.namespace)}`;
  return `${what} at the cluster scope`;
}

// kube-apiserver escapes these so the message cannot pass for HTML; the reason is not escaped.
function sanitize(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** What follows `is forbidden: `: the message, then `: <reason>` when the authorizers gave one. */
export function forbiddenReason(attributes: Attributes, reason: string): string {
  const message = sanitize(forbiddenMessage(attributes));
  return reason === '' ? message : `${message}: ${reason}`;
}

export interface ForbiddenStatus {
  readonly message: string;
  /** Status details as NewForbidden sets them (empty fields are left out). */
  readonly details: { name?: string; group?: string; kind?: string };
}

/**
 * The whole 403 Status text and details: `pods "web" is forbidden: ...`, `deployments.apps is
 * forbidden: ...` without a name, `forbidden: ...` for non-resource paths. The group/resource
 * is the resource's, never the subresource's.
 */
export function forbiddenStatus(attributes: Attributes, reason: string): ForbiddenStatus {
  const why = forbiddenReason(attributes, reason);
  const { apiGroup: group, resource, name } = attributes;
  const details: ForbiddenStatus['details'] = {};
  if (name !== '') details.name = name;
  if (group !== '') details.group = group;
  if (resource !== '') details.kind = resource;
  if (group === '' && resource === '') return { message: `forbidden: ${why}`, details };
  const qualified = group === '' ? resource : `${resource}.${group}`;
  const subject = name === '' ? qualified : `${qualified} ${goQuote(name)}`;
  return { message: `${subject} is forbidden: ${why}`, details };
}
