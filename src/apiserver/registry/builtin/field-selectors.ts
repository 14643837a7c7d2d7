import type { KubeObject } from '../../../api/object.js';

/**
 * The fields each built-in kind lets field selectors use, beyond metadata.name and
 * metadata.namespace (kube-apiserver's per-strategy GetAttrs / field label conversions).
 */
type FieldGetter = (object: KubeObject) => Record<string, string>;

function get(object: unknown, path: string): unknown {
  let value: unknown = object;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function fields(paths: readonly string[], defaults: Record<string, string> = {}): FieldGetter {
  return (object) => {
    const values: Record<string, string> = {};
    for (const path of paths) {
      const value = get(object, path);
      values[path] = value === undefined || value === null ? (defaults[path] ?? '') : String(value);
    }
    return values;
  };
}

const podFields = fields(
  [
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.nominatedNodeName',
  ],
  { 'spec.hostNetwork': 'false' },
);

export const SELECTABLE_FIELDS: Readonly<Record<string, FieldGetter>> = {
  '/Pod': (object) => {
    const values = podFields(object);
    // `spec.host` is what old clients sent for spec.nodeName; `status.podIPs` is a label
    // upstream accepts without setting it, so it matches only the empty value.
    values['spec.host'] = values['spec.nodeName']!;
    values['status.podIPs'] = '';
    return values;
  },
  '/Event': (object) => {
    const values = fields([
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'type',
    ])(object);
    // `source` is the source component, or else the reporting controller (events.k8s.io writers).
    const component = get(object, 'source.component');
    values.source =
      typeof component === 'string' && component !== '' ? component : values.reportingComponent!;
    return values;
  },
  // The events.k8s.io names of the same fields (its field label conversions map them onto core's).
  'events.k8s.io/Event': fields([
    'reason',
    'reportingController',
    'type',
    'regarding.kind',
    'regarding.name',
    'regarding.namespace',
    'regarding.uid',
    'regarding.apiVersion',
    'regarding.resourceVersion',
    'regarding.fieldPath',
  ]),
  '/Secret': fields(['type']),
  '/Namespace': fields(['status.phase']),
  '/Node': fields(['spec.unschedulable'], { 'spec.unschedulable': 'false' }),
  '/ReplicationController': fields(['status.replicas']),
  'apps/ReplicaSet': fields(['status.replicas']),
  'batch/Job': fields(['status.successful']),
  'certificates.k8s.io/CertificateSigningRequest': fields(['spec.signerName']),
  '/Service': fields(['spec.clusterIP', 'spec.type']),
};
