// Some values fail while kube-apiserver decodes the request body, before defaulting and validation:
// the answer is then 400 BadRequest `<Kind> in version "<v>" cannot be handled as a <Kind>: <message>`.
// This finds the first such value (quantities that do not parse) for the lead's decode step.

import { isJsonObject } from '../../../api/object.js';
import { parseQuantity, QUANTITY_FORMAT_ERROR } from '../../../api/quantity.js';

/** A path pattern: keys, `*` for every list item or map value. */
type Pattern = readonly string[];

const CONTAINER_PATTERNS: Pattern[] = [
  ['resources', 'limits', '*'],
  ['resources', 'requests', '*'],
  ['env', '*', 'valueFrom', 'resourceFieldRef', 'divisor'],
];

function podSpecPatterns(prefix: readonly string[]): Pattern[] {
  const patterns: Pattern[] = [
    [...prefix, 'overhead', '*'],
    [...prefix, 'volumes', '*', 'emptyDir', 'sizeLimit'],
    [...prefix, 'volumes', '*', 'downwardAPI', 'items', '*', 'resourceFieldRef', 'divisor'],
    [...prefix, 'volumes', '*', 'ephemeral', 'volumeClaimTemplate', 'spec', 'resources', 'requests', '*'],
    [...prefix, 'volumes', '*', 'ephemeral', 'volumeClaimTemplate', 'spec', 'resources', 'limits', '*'],
  ];
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const pattern of CONTAINER_PATTERNS) patterns.push([...prefix, list, '*', ...pattern]);
  }
  return patterns;
}

const TEMPLATE = ['spec', 'template', 'spec'];

/** Where each kind keeps quantities ("<group>/<Kind>" keys, as in the validation table). */
export const QUANTITY_PATTERNS: Readonly<Record<string, readonly Pattern[]>> = {
  '/Pod': podSpecPatterns(['spec']),
  '/PodTemplate': podSpecPatterns(['template', 'spec']),
  '/ReplicationController': podSpecPatterns(TEMPLATE),
  'apps/Deployment': podSpecPatterns(TEMPLATE),
  'apps/ReplicaSet': podSpecPatterns(TEMPLATE),
  'apps/DaemonSet': podSpecPatterns(TEMPLATE),
  'apps/StatefulSet': [
    ...podSpecPatterns(TEMPLATE),
    ['spec', 'volumeClaimTemplates', '*', 'spec', 'resources', 'requests', '*'],
    ['spec', 'volumeClaimTemplates', '*', 'spec', 'resources', 'limits', '*'],
  ],
  'batch/Job': podSpecPatterns(TEMPLATE),
  'batch/CronJob': podSpecPatterns(['spec', 'jobTemplate', 'spec', 'template', 'spec']),
  '/PersistentVolumeClaim': [
    ['spec', 'resources', 'requests', '*'],
    ['spec', 'resources', 'limits', '*'],
    ['status', 'capacity', '*'],
    ['status', 'allocatedResources', '*'],
  ],
  '/PersistentVolume': [['spec', 'capacity', '*']],
  '/Node': [
    ['status', 'capacity', '*'],
    ['status', 'allocatable', '*'],
  ],
  '/ResourceQuota': [
    ['spec', 'hard', '*'],
    ['status', 'hard', '*'],
    ['status', 'used', '*'],
  ],
  '/LimitRange': ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'].map((key) => [
    'spec',
    'limits',
    '*',
    key,
    '*',
  ]),
  'autoscaling/HorizontalPodAutoscaler': [
    'object',
    'pods',
    'resource',
    'containerResource',
    'external',
  ].flatMap((source) => [
    ['spec', 'metrics', '*', source, 'target', 'value'],
    ['spec', 'metrics', '*', source, 'target', 'averageValue'],
  ]),
};

/**
 * Calls `visit` with each value the pattern reaches, until it returns an error. A plain
 * recursive walk: this runs on every write of a pod-bearing object, where generators cost
 * several times as much.
 */
function firstErrorAt(
  value: unknown,
  pattern: Pattern,
  index: number,
  visit: (value: unknown) => string | undefined,
): string | undefined {
  if (index === pattern.length) return visit(value);
  const key = pattern[index]!;
  if (key !== '*')
    return isJsonObject(value) ? firstErrorAt(value[key], pattern, index + 1, visit) : undefined;
  const items = Array.isArray(value) ? value : isJsonObject(value) ? Object.values(value) : undefined;
  if (items === undefined) return undefined;
  for (const item of items) {
    const error = firstErrorAt(item, pattern, index + 1, visit);
    if (error !== undefined) return error;
  }
  return undefined;
}

function quantityError(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' && typeof value !== 'number') return QUANTITY_FORMAT_ERROR;
  const parsed = parseQuantity(typeof value === 'number' ? String(value) : value.trim());
  return 'error' in parsed ? parsed.error : undefined;
}

/** The first quantity of the object that does not decode, as Kubernetes words it; undefined when all do. */
export function quantityDecodeError(object: unknown, patterns: readonly Pattern[]): string | undefined {
  for (const pattern of patterns) {
    const error = firstErrorAt(object, pattern, 0, quantityError);
    if (error !== undefined) return error;
  }
  return undefined;
}

/** Go's JSON kind word for a decoded value (json.UnmarshalTypeError's Value). */
function goValueKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (isJsonObject(value)) return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/**
 * ConfigMap `data` is a map[string]string and `binaryData` a map[string][]byte: a value of
 * another JSON type fails decoding (null decodes to the zero value, and is made one here).
 */
export function configMapDecodeError(configMap: unknown): string | undefined {
  if (!isJsonObject(configMap)) return undefined;
  const fields = [
    ['data', 'map[string]string', 'string'],
    ['binaryData', 'map[string][]uint8', '[]uint8'],
  ] as const;
  for (const [field, mapType, valueType] of fields) {
    const map = configMap[field];
    if (map === undefined || map === null) continue;
    const typeError = (value: unknown, goType: string) =>
      `json: cannot unmarshal ${goValueKind(value)} into Go struct field ConfigMap.${field} of type ${goType}`;
    if (!isJsonObject(map)) return typeError(map, mapType);
    for (const [key, value] of Object.entries(map)) {
      if (value === null) map[key] = '';
      else if (typeof value !== 'string') return typeError(value, valueType);
    }
  }
  return undefined;
}
