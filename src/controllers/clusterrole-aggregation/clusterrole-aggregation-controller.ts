// The clusterrole-aggregation controller: a ClusterRole with an aggregationRule gets the rules of
// every ClusterRole its selectors match (apiserver/auth/rbac/aggregation.ts has the rules of it).
// Any ClusterRole change queues every aggregated role: there are few, and which ones a change
// touches is not worth working out.
import type { ClusterRole } from '../../api/types/rbac-v1.generated.js';
import { aggregateClusterRole } from '../../apiserver/auth/rbac/aggregation.js';
import type { ClusterRole as RbacClusterRole } from '../../apiserver/auth/rbac/types.js';
import { Controller } from '../../client/controller.js';
import { apiErrorCode } from '../../client/informers/index.js';
import { CLUSTER_ROLES } from '../../client/resources.js';
import type { ControllerContext, ControllerDescriptor } from '../context.js';

const SERVICE_ACCOUNT = 'clusterrole-aggregation-controller';
/** The field manager of its server-side applies. */
const FIELD_MANAGER = 'clusterrole-aggregation-controller';
/** Unsupported Media Type: the server does not serve server-side apply. */
const UNSUPPORTED_MEDIA_TYPE = 415;

export class ClusterRoleAggregationController {
  readonly controller: Controller;

  constructor(private readonly context: ControllerContext) {
    const roles = context.informers.informerFor<ClusterRole>(CLUSTER_ROLES);
    this.controller = new Controller({ name: 'ClusterRoleAggregator', sync: (key) => this.sync(key) });
    this.controller.watch(roles, () => this.aggregatedRoleNames());
  }

  private aggregatedRoleNames(): string[] {
    return this.context.informers
      .listerFor<ClusterRole>(CLUSTER_ROLES)
      .list()
      .filter((role) => role.aggregationRule)
      .map((role) => role.metadata?.name ?? '');
  }

  async sync(name: string): Promise<void> {
    const lister = this.context.informers.listerFor<ClusterRole>(CLUSTER_ROLES);
    const role = lister.get('', name);
    if (!role?.aggregationRule) return;
    const all = lister.list() as unknown as RbacClusterRole[];
    const result = aggregateClusterRole(role as unknown as RbacClusterRole, all);
    if (!result?.changed) return;
    const roles = this.context.clientFor(SERVICE_ACCOUNT).resource<ClusterRole>(CLUSTER_ROLES);
    try {
      await roles.patch(
        '',
        name,
        'apply',
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name },
          rules: result.rules,
        },
        { fieldManager: FIELD_MANAGER, force: true },
      );
    } catch (error) {
      if (apiErrorCode(error) !== UNSUPPORTED_MEDIA_TYPE) throw error;
      // Without server-side apply, an update of the cached role (a conflict retries with a fresher one).
      await roles.update({ ...structuredClone(role), rules: result.rules });
    }
  }
}

export const clusterRoleAggregationController: ControllerDescriptor = {
  name: 'clusterrole-aggregation-controller',
  create: (context) => new ClusterRoleAggregationController(context).controller,
};
