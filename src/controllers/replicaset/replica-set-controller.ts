// The ReplicaSet controller: the replica manager for apps/v1 ReplicaSets, acting as
// system:serviceaccount:kube-system:replicaset-controller.
import { labelSelectorFromObject } from '../../api/selectors/index.js';
import type { ReplicaSet } from '../../api/types/apps-v1.generated.js';
import { REPLICA_SETS } from '../../client/resources.js';
import type { ControllerDescriptor } from '../context.js';
import { ReplicaManager } from './replica-manager.js';
import type { ReplicatedKind } from './replicated-kind.js';

export const REPLICA_SET_KIND: ReplicatedKind<ReplicaSet> = {
  name: 'replicaset-controller',
  ref: REPLICA_SETS,
  ownerKind: { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
  serviceAccount: 'replicaset-controller',
  selectorOf: (replicaSet) => labelSelectorFromObject(replicaSet.spec?.selector),
};

export const replicaSetController: ControllerDescriptor = {
  name: REPLICA_SET_KIND.name,
  create: (context) => new ReplicaManager(context, REPLICA_SET_KIND),
};
