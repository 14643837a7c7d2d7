/** The bootstrap Roles and RoleBindings in kube-system and kube-public. */
import {
  eventsRule,
  namespacedRole,
  namespacedRoleBinding,
  rule,
  serviceAccounts,
  users,
} from './bootstrap-builders.js';
import { CONTROLLER_ROLE_PREFIX } from './bootstrap-controller-roles.js';
import type { Role, RoleBinding } from './types.js';

const KUBE_SYSTEM = 'kube-system';
const KUBE_PUBLIC = 'kube-public';
const KUBE_CONTROLLER_MANAGER = 'system:kube-controller-manager';
const KUBE_SCHEDULER = 'system:kube-scheduler';
const BOOTSTRAP_SIGNER = `${CONTROLLER_ROLE_PREFIX}bootstrap-signer`;
const CLOUD_PROVIDER = `${CONTROLLER_ROLE_PREFIX}cloud-provider`;
const TOKEN_CLEANER = `${CONTROLLER_ROLE_PREFIX}token-cleaner`;
const AUTHENTICATION_READER = 'extension-apiserver-authentication-reader';
const LEADER_LOCKING_CONTROLLER_MANAGER = 'system::leader-locking-kube-controller-manager';
const LEADER_LOCKING_SCHEDULER = 'system::leader-locking-kube-scheduler';

export function namespaceRoles(): Role[] {
  return [
    // Readers of the authentication configuration a delegating server starts from.
    namespacedRole(KUBE_SYSTEM, AUTHENTICATION_READER, [
      rule(['get', 'list', 'watch'], [''], ['configmaps'], ['extension-apiserver-authentication']),
    ]),
    namespacedRole(KUBE_SYSTEM, BOOTSTRAP_SIGNER, [rule(['get', 'list', 'watch'], [''], ['secrets'])]),
    // Deprecated since 1.10, still created.
    namespacedRole(KUBE_SYSTEM, CLOUD_PROVIDER, [
      rule(['create', 'get', 'list', 'watch'], [''], ['configmaps']),
    ]),
    namespacedRole(KUBE_SYSTEM, TOKEN_CLEANER, [
      rule(['get', 'list', 'watch', 'delete'], [''], ['secrets']),
      eventsRule(),
    ]),
    namespacedRole(KUBE_SYSTEM, LEADER_LOCKING_CONTROLLER_MANAGER, [
      rule(['watch'], [''], ['configmaps']),
      rule(['get', 'update'], [''], ['configmaps'], ['kube-controller-manager']),
      rule(['get', 'watch', 'list', 'create', 'update'], ['coordination.k8s.io'], ['leases']),
    ]),
    namespacedRole(KUBE_SYSTEM, LEADER_LOCKING_SCHEDULER, [
      rule(['watch'], [''], ['configmaps']),
      rule(['get', 'update'], [''], ['configmaps'], ['kube-scheduler']),
    ]),
    namespacedRole(KUBE_PUBLIC, BOOTSTRAP_SIGNER, [
      rule(['get', 'list', 'watch'], [''], ['configmaps']),
      rule(['update'], [''], ['configmaps'], ['cluster-info']),
      eventsRule(),
    ]),
  ];
}

export function namespaceRoleBindings(): RoleBinding[] {
  return [
    namespacedRoleBinding(
      KUBE_SYSTEM,
      AUTHENTICATION_READER,
      users(KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER),
      `system::${AUTHENTICATION_READER}`,
    ),
    namespacedRoleBinding(KUBE_SYSTEM, LEADER_LOCKING_CONTROLLER_MANAGER, [
      ...users(KUBE_CONTROLLER_MANAGER),
      ...serviceAccounts(KUBE_SYSTEM, 'kube-controller-manager', 'leader-election-controller'),
    ]),
    namespacedRoleBinding(KUBE_SYSTEM, LEADER_LOCKING_SCHEDULER, [
      ...users(KUBE_SCHEDULER),
      ...serviceAccounts(KUBE_SYSTEM, 'kube-scheduler'),
    ]),
    namespacedRoleBinding(KUBE_SYSTEM, BOOTSTRAP_SIGNER, serviceAccounts(KUBE_SYSTEM, 'bootstrap-signer')),
    namespacedRoleBinding(KUBE_SYSTEM, CLOUD_PROVIDER, serviceAccounts(KUBE_SYSTEM, 'cloud-provider')),
    namespacedRoleBinding(KUBE_SYSTEM, TOKEN_CLEANER, serviceAccounts(KUBE_SYSTEM, 'token-cleaner')),
    namespacedRoleBinding(KUBE_PUBLIC, BOOTSTRAP_SIGNER, serviceAccounts(KUBE_SYSTEM, 'bootstrap-signer')),
  ];
}
