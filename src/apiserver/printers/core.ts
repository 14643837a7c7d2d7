// Printers of the core ("") group's simpler kinds; pods, services, nodes, volumes and events have
// files of their own.
import { compareGoStrings } from '../../api/selectors/go-text.js';
import { at, int, list, mapSize, obj, str } from './access.js';
import { AGE, column, fieldColumn, NAME, templateColumns, wideFieldColumn } from './columns.js';
import { containerCells, formatLabels } from './format.js';
import { ageOf, nameOf } from './meta.js';
import { canonicalQuantity } from './quantity.js';
import type { KindPrinter } from './types.js';

export const podTemplates: KindPrinter = {
  columns: [NAME, ...templateColumns(0), column('Pod Labels', 'string', 'The labels for the pod template.')],
  row(template) {
    const [names, images] = containerCells(list(template, 'template', 'spec', 'containers'));
    return [nameOf(template), names, images, formatLabels(at(template, 'template', 'metadata', 'labels'))];
  },
};

export const replicationControllers: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('Desired', 'integer', 'core/v1.ReplicationControllerSpec.replicas'),
    fieldColumn('Current', 'integer', 'core/v1.ReplicationControllerStatus.replicas'),
    fieldColumn('Ready', 'integer', 'core/v1.ReplicationControllerStatus.readyReplicas'),
    AGE,
    ...templateColumns(),
    wideFieldColumn('Selector', 'string', 'core/v1.ReplicationControllerSpec.selector'),
  ],
  row(rc, now) {
    const [names, images] = containerCells(list(rc, 'spec', 'template', 'spec', 'containers'));
    return [
      nameOf(rc),
      int(rc, 'spec', 'replicas'),
      int(rc, 'status', 'replicas'),
      int(rc, 'status', 'readyReplicas'),
      ageOf(rc, now),
      names,
      images,
      formatLabels(at(rc, 'spec', 'selector')),
    ];
  },
};

export const namespaces: KindPrinter = {
  columns: [NAME, column('Status', 'string', 'The status of the namespace'), AGE],
  row(namespace, now) {
    return [nameOf(namespace), str(namespace, 'status', 'phase'), ageOf(namespace, now)];
  },
};

export const secrets: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('Type', 'string', 'core/v1.Secret.type'),
    fieldColumn('Data', 'string', 'core/v1.Secret.data'),
    AGE,
  ],
  row(secret, now) {
    return [nameOf(secret), str(secret, 'type'), mapSize(secret, 'data'), ageOf(secret, now)];
  },
};

export const serviceAccounts: KindPrinter = {
  columns: [NAME, fieldColumn('Secrets', 'string', 'core/v1.ServiceAccount.secrets'), AGE],
  row(account, now) {
    return [nameOf(account), list(account, 'secrets').length, ageOf(account, now)];
  },
};

export const componentStatuses: KindPrinter = {
  columns: [
    NAME,
    column('Status', 'string', 'Status of the component conditions'),
    column('Message', 'string', 'Message of the component conditions'),
    column('Error', 'string', 'Error of the component conditions'),
  ],
  row(component) {
    const healthy = list(component, 'conditions').find((condition) => str(condition, 'type') === 'Healthy');
    if (healthy === undefined) return [nameOf(component), 'Unknown', '', ''];
    const status = str(healthy, 'status') === 'True' ? 'Healthy' : 'Unhealthy';
    return [nameOf(component), status, str(healthy, 'message'), str(healthy, 'error')];
  },
};

export const configMaps: KindPrinter = {
  columns: [NAME, fieldColumn('Data', 'string', 'core/v1.ConfigMap.data'), AGE],
  row(configMap, now) {
    return [
      nameOf(configMap),
      mapSize(configMap, 'data') + mapSize(configMap, 'binaryData'),
      ageOf(configMap, now),
    ];
  },
};

export const resourceQuotas: KindPrinter = {
  columns: [
    NAME,
    column(
      'Request',
      'string',
      'Request represents a minimum amount of cpu/memory that a container may consume.',
    ),
    column(
      'Limit',
      'string',
      'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
    ),
    AGE,
  ],
  row(quota, now) {
    const hard = obj(quota, 'status', 'hard');
    const used = obj(quota, 'status', 'used');
    const requests: string[] = [];
    const limits: string[] = [];
    for (const resource of Object.keys(hard).sort(compareGoStrings)) {
      const entry = `${resource}: ${canonicalQuantity(used[resource])}/${canonicalQuantity(hard[resource])}`;
      // `limits.cpu`, `limits.memory`, ... go to the Limit column, everything else to Request.
      const pieces = resource.split('.');
      (pieces.length > 1 && pieces[0] === 'limits' ? limits : requests).push(entry);
    }
    return [nameOf(quota), requests.join(', '), limits.join(', '), ageOf(quota, now)];
  },
};
