// Printers of rbac.authorization.k8s.io. Roles and ClusterRoles have none: they get the default table.
import type { KubeObject } from '../../api/object.js';
import { list, str } from './access.js';
import { AGE, column, fieldColumn, NAME } from './columns.js';
import type { DescriptionKey } from './descriptions.js';
import { ageOf, nameOf } from './meta.js';
import type { KindPrinter } from './types.js';

/** rbac.SubjectsStrings: users, groups and `namespace/name` of service accounts. */
function subjects(binding: KubeObject): [users: string, groups: string, serviceAccounts: string] {
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: string[] = [];
  for (const subject of list(binding, 'subjects')) {
    const name = str(subject, 'name');
    switch (str(subject, 'kind')) {
      case 'User':
        users.push(name);
        break;
      case 'Group':
        groups.push(name);
        break;
      case 'ServiceAccount':
        serviceAccounts.push(`${str(subject, 'namespace')}/${name}`);
        break;
    }
  }
  return [users.join(', '), groups.join(', '), serviceAccounts.join(', ')];
}

function bindingPrinter(roleRefKey: DescriptionKey, noun: string): KindPrinter {
  return {
    columns: [
      NAME,
      fieldColumn('Role', 'string', roleRefKey),
      AGE,
      column('Users', 'string', `Users in the ${noun}`, { priority: 1 }),
      column('Groups', 'string', `Groups in the ${noun}`, { priority: 1 }),
      column('ServiceAccounts', 'string', `ServiceAccounts in the ${noun}`, { priority: 1 }),
    ],
    row(binding, now) {
      const roleRef = `${str(binding, 'roleRef', 'kind')}/${str(binding, 'roleRef', 'name')}`;
      return [nameOf(binding), roleRef, ageOf(binding, now), ...subjects(binding)];
    },
  };
}

export const roleBindings = bindingPrinter('rbac/v1beta1.RoleBinding.roleRef', 'roleBinding');
export const clusterRoleBindings = bindingPrinter(
  'rbac/v1beta1.ClusterRoleBinding.roleRef',
  'clusterRoleBinding',
);
