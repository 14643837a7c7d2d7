import type { KubeObject } from '../../api/object.js';
import type { UserInfo } from '../http/types.js';
import { forbidden } from '../status.js';
import {
  type Authorizer,
  bindAttributes,
  type ClusterRole,
  clusterRoleEscalationError,
  confirmNoEscalation,
  escalateAttributes,
  escalationAllowed,
  type PolicySource,
  RBAC_GROUP,
  type Role,
  type RoleBinding,
} from './rbac/index.js';

/**
 * RBAC's escalation prevention on role and binding writes: a user may only grant what the
 * user holds, unless allowed to `escalate` (roles) or `bind` (bindings) — else 403 with
 * Kubernetes' "attempting to grant RBAC permissions not currently held" text.
 */
export function rbacWriteCheck(
  resource: 'roles' | 'clusterroles' | 'rolebindings' | 'clusterrolebindings',
  authorizer: Authorizer,
  policy: PolicySource,
): (object: KubeObject, old: KubeObject | undefined, user: UserInfo) => void {
  return (object, old, user) => {
    if (escalationAllowed(user)) return;
    const name = object.metadata?.name ?? '';
    const namespace = object.metadata?.namespace ?? '';
    const gr = { group: RBAC_GROUP, resource };
    let problem: string | undefined;
    if (resource === 'roles' || resource === 'clusterroles') {
      const escalate = escalateAttributes(user, { apiGroup: RBAC_GROUP, resource, namespace, name });
      if (escalate && authorizer.authorize(escalate).decision === 'allow') return;
      problem =
        resource === 'clusterroles'
          ? clusterRoleEscalationError(
              policy,
              user,
              object as unknown as ClusterRole,
              old as unknown as ClusterRole | undefined,
            )
          : confirmNoEscalation(policy, user, namespace, (object as unknown as Role).rules ?? []);
    } else {
      const binding = object as unknown as RoleBinding;
      const bind = bindAttributes(user, binding.roleRef, namespace);
      if (bind && authorizer.authorize(bind).decision === 'allow') return;
      const role =
        binding.roleRef.kind === 'ClusterRole'
          ? policy.getClusterRole(binding.roleRef.name)
          : policy.getRole(namespace, binding.roleRef.name);
      problem = confirmNoEscalation(policy, user, namespace, role?.rules ?? []);
    }
    if (problem !== undefined) throw forbidden(gr, name, problem);
  };
}
