// The ReplicationController controller: the same replica manager as ReplicaSets (upstream converts
// ReplicationControllers to ReplicaSets on the way in and out), with a plain label map as selector,
// acting as system:serviceaccount:kube-system:replication-controller.
import { labelSelectorFromObject } from '../../api/selectors/index.js';
import type { ReplicationController } from '../../api/types/core-v1.generated.js';
import { REPLICATION_CONTROLLERS } from '../../client/resources.js';
import type { ControllerDescriptor } from '../context.js';
import { ReplicaManager } from '../replicaset/replica-manager.js';
import type { ReplicatedKind } from '../replicaset/replicated-kind.js';

export const REPLICATION_CONTROLLER_KIND: ReplicatedKind<ReplicationController> = {
  name: 'replicationcontroller-controller',
  ref: REPLICATION_CONTROLLERS,
  ownerKind: { apiVersion: 'v1', kind: 'ReplicationController' },
  serviceAccount: 'replication-controller',
  // A missing selector selects nothing; a map becomes matchLabels (an empty one selects everything).
  selectorOf: (controller) => {
    const selector = controller.spec?.selector;
    return labelSelectorFromObject(selector === undefined ? undefined : { matchLabels: selector });
  },
};

export const replicationControllerController: ControllerDescriptor = {
  name: REPLICATION_CONTROLLER_KIND.name,
  create: (context) => new ReplicaManager(context, REPLICATION_CONTROLLER_KIND),
};
