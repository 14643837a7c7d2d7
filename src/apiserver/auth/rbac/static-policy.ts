/** A PolicySource over fixed lists of objects (tests, and policy known before any watch). */
import type { PolicySource } from './rule-resolver.js';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from './types.js';

export interface PolicyObjects {
  clusterRoles?: readonly ClusterRole[];
  clusterRoleBindings?: readonly ClusterRoleBinding[];
  roles?: readonly Role[];
  roleBindings?: readonly RoleBinding[];
}

export class StaticPolicySource implements PolicySource {
  private readonly objects: Required<PolicyObjects>;

  constructor(objects: PolicyObjects) {
    this.objects = {
      clusterRoles: objects.clusterRoles ?? [],
      clusterRoleBindings: objects.clusterRoleBindings ?? [],
      roles: objects.roles ?? [],
      roleBindings: objects.roleBindings ?? [],
    };
  }

  clusterRoles(): readonly ClusterRole[] {
    return this.objects.clusterRoles;
  }

  clusterRoleBindings(): readonly ClusterRoleBinding[] {
    return this.objects.clusterRoleBindings;
  }

  roles(namespace: string): readonly Role[] {
    return this.objects.roles.filter((role) => role.metadata.namespace === namespace);
  }

  roleBindings(namespace: string): readonly RoleBinding[] {
    return this.objects.roleBindings.filter((binding) => binding.metadata.namespace === namespace);
  }

  getRole(namespace: string, name: string): Role | undefined {
    return this.objects.roles.find(
      (role) => role.metadata.namespace === namespace && role.metadata.name === name,
    );
  }

  getClusterRole(name: string): ClusterRole | undefined {
    return this.objects.clusterRoles.find((role) => role.metadata.name === name);
  }
}
