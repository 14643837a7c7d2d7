// The Node printer: Ready/NotReady (plus SchedulingDisabled), roles from labels, addresses, versions.
import type { KubeObject } from '../../api/object.js';
import { at, list, obj, str, stringMap } from './access.js';
import { AGE, column, fieldColumn, NAME, wideFieldColumn } from './columns.js';
import { sortedSet } from './format.js';
import { ageOf, nameOf } from './meta.js';
import type { KindPrinter } from './types.js';

const NODE_ROLE_PREFIX = 'node-role.kubernetes.io/';
const NODE_ROLE_LABEL = 'kubernetes.io/role';

/** Roles from `node-role.kubernetes.io/<role>` label keys and the `kubernetes.io/role` label's value. */
function nodeRoles(node: KubeObject): string {
  const roles: string[] = [];
  for (const [key, value] of Object.entries(stringMap(node, 'metadata', 'labels'))) {
    if (key.startsWith(NODE_ROLE_PREFIX)) {
      const role = key.slice(NODE_ROLE_PREFIX.length);
      if (role !== '') roles.push(role);
    } else if (key === NODE_ROLE_LABEL && value !== '') {
      roles.push(value);
    }
  }
  return sortedSet(roles).join(',') || '<none>';
}

function nodeStatus(node: KubeObject): string {
  // Only the Ready condition counts; the last one of that type wins, as in a Go map.
  let ready: string | undefined;
  for (const condition of list(node, 'status', 'conditions')) {
    if (str(condition, 'type') === 'Ready') ready = str(condition, 'status');
  }
  const status = [ready === undefined ? 'Unknown' : ready === 'True' ? 'Ready' : 'NotReady'];
  if (at(node, 'spec', 'unschedulable') === true) status.push('SchedulingDisabled');
  return status.join(',');
}

function nodeAddress(node: KubeObject, type: string): string {
  const address = list(node, 'status', 'addresses').find((entry) => str(entry, 'type') === type);
  return address === undefined ? '<none>' : str(address, 'address');
}

export const nodes: KindPrinter = {
  columns: [
    NAME,
    column('Status', 'string', 'The status of the node'),
    column('Roles', 'string', 'The roles of the node'),
    AGE,
    fieldColumn('Version', 'string', 'core/v1.NodeSystemInfo.kubeletVersion'),
    wideFieldColumn('Internal-IP', 'string', 'core/v1.NodeStatus.addresses'),
    wideFieldColumn('External-IP', 'string', 'core/v1.NodeStatus.addresses'),
    wideFieldColumn('OS-Image', 'string', 'core/v1.NodeSystemInfo.osImage'),
    wideFieldColumn('Kernel-Version', 'string', 'core/v1.NodeSystemInfo.kernelVersion'),
    wideFieldColumn('Container-Runtime', 'string', 'core/v1.NodeSystemInfo.containerRuntimeVersion'),
  ],
  row(node, now) {
    const info = obj(node, 'status', 'nodeInfo');
    return [
      nameOf(node),
      nodeStatus(node),
      nodeRoles(node),
      ageOf(node, now),
      str(info, 'kubeletVersion'),
      nodeAddress(node, 'InternalIP'),
      nodeAddress(node, 'ExternalIP'),
      str(info, 'osImage') || '<unknown>',
      str(info, 'kernelVersion') || '<unknown>',
      str(info, 'containerRuntimeVersion') || '<unknown>',
    ];
  },
};
