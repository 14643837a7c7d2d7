import type { IncomingHttpHeaders } from 'node:http';
import type { UserInfo } from '../http/types.js';
import { badRequest, StatusError } from '../status.js';
import { type Authorizer, forbiddenStatus, resourceAttributes } from './rbac/index.js';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

function values(headers: IncomingHttpHeaders, name: string): string[] {
  const value = headers[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : value.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/**
 * Impersonation (`kubectl --as`, `--as-group`, `--as-uid`): the caller must be allowed the
 * `impersonate` verb on each user, service account, group, uid and extra it asks for; the
 * request then runs as that identity. Without impersonation headers, the caller itself.
 */
export function impersonate(user: UserInfo, headers: IncomingHttpHeaders, authorizer: Authorizer): UserInfo {
  const asUser = values(headers, 'impersonate-user')[0];
  const asGroups = values(headers, 'impersonate-group');
  const asUid = values(headers, 'impersonate-uid')[0];
  const extraHeaders = Object.keys(headers).filter((h) => h.startsWith('impersonate-extra-'));
  if (asUser === undefined) {
    if (asGroups.length > 0 || asUid !== undefined || extraHeaders.length > 0) {
      throw badRequest('requested impersonation of groups, uid or extra without impersonating a user');
    }
    return user;
  }
  const check = (resource: string, name: string, group = '', namespace = '', subresource = ''): void => {
    const attributes = resourceAttributes(user, 'impersonate', {
      apiGroup: group,
      resource,
      name,
      namespace,
      subresource,
    });
    const result = authorizer.authorize(attributes);
    if (result.decision === 'allow') return;
    const { message, details } = forbiddenStatus(attributes, result.reason);
    throw new StatusError(403, 'Forbidden', message, details);
  };
  let groups = [...asGroups];
  if (asUser.startsWith(SERVICE_ACCOUNT_PREFIX)) {
    const [namespace = '', name = ''] = asUser.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
    check('serviceaccounts', name, '', namespace);
    if (groups.length === 0) groups = ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];
  } else {
    check('users', asUser);
  }
  for (const group of asGroups) check('groups', group);
  if (asUid !== undefined) check('uids', asUid, 'authentication.k8s.io');
  const extra: Record<string, string[]> = {};
  for (const header of extraHeaders) {
    const key = decodeURIComponent(header.slice('impersonate-extra-'.length));
    extra[key] = values(headers, header);
    for (const value of extra[key]) check('userextras', value, 'authentication.k8s.io', '', key);
  }
  if (asUser !== 'system:anonymous' && !groups.includes('system:authenticated'))
    groups.push('system:authenticated');
  return {
    name: asUser,
    ...(asUid !== undefined ? { uid: asUid } : {}),
    groups,
    ...(extraHeaders.length > 0 ? { extra } : {}),
  };
}
