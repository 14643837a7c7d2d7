// Printers of the apps group.
import type { KubeObject } from '../../api/object.js';
import { at, int, list, str } from './access.js';
import { AGE, column, fieldColumn, NAME, templateColumns, wideFieldColumn } from './columns.js';
import {
  containerCells,
  formatLabelSelector,
  formatLabels,
  groupOfApiVersion,
  labelSelectorText,
} from './format.js';
import { ageOf, nameOf } from './meta.js';
import type { KindPrinter } from './types.js';

function templateCells(workload: KubeObject): [string, string] {
  return containerCells(list(workload, 'spec', 'template', 'spec', 'containers'));
}

export const replicaSets: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('Desired', 'integer', 'extensions/v1beta1.ReplicaSetSpec.replicas'),
    fieldColumn('Current', 'integer', 'extensions/v1beta1.ReplicaSetStatus.replicas'),
    fieldColumn('Ready', 'integer', 'extensions/v1beta1.ReplicaSetStatus.readyReplicas'),
    AGE,
    ...templateColumns(),
    wideFieldColumn('Selector', 'string', 'extensions/v1beta1.ReplicaSetSpec.selector'),
  ],
  row(rs, now) {
    return [
      nameOf(rs),
      int(rs, 'spec', 'replicas'),
      int(rs, 'status', 'replicas'),
      int(rs, 'status', 'readyReplicas'),
      ageOf(rs, now),
      ...templateCells(rs),
      formatLabelSelector(at(rs, 'spec', 'selector')),
    ];
  },
};

export const daemonSets: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('Desired', 'integer', 'extensions/v1beta1.DaemonSetStatus.desiredNumberScheduled'),
    fieldColumn('Current', 'integer', 'extensions/v1beta1.DaemonSetStatus.currentNumberScheduled'),
    fieldColumn('Ready', 'integer', 'extensions/v1beta1.DaemonSetStatus.numberReady'),
    fieldColumn('Up-to-date', 'integer', 'extensions/v1beta1.DaemonSetStatus.updatedNumberScheduled'),
    fieldColumn('Available', 'integer', 'extensions/v1beta1.DaemonSetStatus.numberAvailable'),
    fieldColumn('Node Selector', 'string', 'core/v1.PodSpec.nodeSelector'),
    AGE,
    ...templateColumns(),
    wideFieldColumn('Selector', 'string', 'extensions/v1beta1.DaemonSetSpec.selector'),
  ],
  row(ds, now) {
    return [
      nameOf(ds),
      int(ds, 'status', 'desiredNumberScheduled'),
      int(ds, 'status', 'currentNumberScheduled'),
      int(ds, 'status', 'numberReady'),
      int(ds, 'status', 'updatedNumberScheduled'),
      int(ds, 'status', 'numberAvailable'),
      formatLabels(at(ds, 'spec', 'template', 'spec', 'nodeSelector')),
      ageOf(ds, now),
      ...templateCells(ds),
      formatLabelSelector(at(ds, 'spec', 'selector')),
    ];
  },
};

export const statefulSets: KindPrinter = {
  columns: [NAME, column('Ready', 'string', 'Number of the pod with ready state'), AGE, ...templateColumns()],
  row(sts, now) {
    const ready = `${int(sts, 'status', 'readyReplicas')}/${int(sts, 'spec', 'replicas')}`;
    return [nameOf(sts), ready, ageOf(sts, now), ...templateCells(sts)];
  },
};

export const deployments: KindPrinter = {
  columns: [
    NAME,
    column('Ready', 'string', 'Number of the pod with ready state'),
    fieldColumn('Up-to-date', 'string', 'extensions/v1beta1.DeploymentStatus.updatedReplicas'),
    fieldColumn('Available', 'string', 'extensions/v1beta1.DeploymentStatus.availableReplicas'),
    AGE,
    ...templateColumns(),
    wideFieldColumn('Selector', 'string', 'extensions/v1beta1.DeploymentSpec.selector'),
  ],
  row(deployment, now) {
    return [
      nameOf(deployment),
      `${int(deployment, 'status', 'readyReplicas')}/${int(deployment, 'spec', 'replicas')}`,
      int(deployment, 'status', 'updatedReplicas'),
      int(deployment, 'status', 'availableReplicas'),
      ageOf(deployment, now),
      ...templateCells(deployment),
      // Unlike other workloads, a deployment prints an empty selector as '' rather than <none>.
      labelSelectorText(at(deployment, 'spec', 'selector')) ?? '<invalid>',
    ];
  },
};

/** `daemonset.apps/web` for the controller owner reference, `<none>` without one. */
function revisionController(revision: KubeObject): string {
  const owner = list(revision, 'metadata', 'ownerReferences').find((ref) => at(ref, 'controller') === true);
  if (owner === undefined) return '<none>';
  const name = str(owner, 'name');
  const kind = str(owner, 'kind');
  // Kubernetes fails the whole table on a malformed apiVersion; showing the bare name is kinder.
  const group = groupOfApiVersion(str(owner, 'apiVersion'));
  if (group === undefined || (group === '' && kind === '')) return name;
  return `${(group === '' ? kind : `${kind}.${group}`).toLowerCase()}/${name}`;
}

export const controllerRevisions: KindPrinter = {
  columns: [
    NAME,
    column('Controller', 'string', 'Controller of the object'),
    fieldColumn('Revision', 'string', 'apps/v1beta1.ControllerRevision.revision'),
    AGE,
  ],
  row(revision, now) {
    return [nameOf(revision), revisionController(revision), int(revision, 'revision'), ageOf(revision, now)];
  },
};
