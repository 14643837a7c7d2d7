// Printers of the autoscaling group: HorizontalPodAutoscalers and the Scale subresource.
import type { JsonObject, KubeObject } from '../../api/object.js';
import { at, int, list, obj, optInt, optObj, str } from './access.js';
import { AGE, fieldColumn, NAME } from './columns.js';
import { ageOf, nameOf } from './meta.js';
import { quantityOrNil } from './quantity.js';
import type { KindPrinter } from './types.js';

/**
 * spec.metrics and status.currentMetrics in the autoscaling/v2 shape Kubernetes prints from. An
 * autoscaling/v1 object's CPU target and reading become a Resource metric, as its conversion does.
 */
function metrics(hpa: KubeObject): [specs: unknown[], statuses: unknown[]] {
  if (hpa.apiVersion !== 'autoscaling/v1') {
    return [list(hpa, 'spec', 'metrics'), list(hpa, 'status', 'currentMetrics')];
  }
  const target = optInt(hpa, 'spec', 'targetCPUUtilizationPercentage');
  const current = optInt(hpa, 'status', 'currentCPUUtilizationPercentage');
  const cpuSpec = { name: 'cpu', target: { type: 'Utilization', averageUtilization: target } };
  const cpuStatus = { name: 'cpu', current: { averageUtilization: current } };
  return [
    target === undefined ? [] : [{ type: 'Resource', resource: cpuSpec }],
    current === undefined ? [] : [{ type: 'Resource', resource: cpuStatus }],
  ];
}

/** `<current>/<target>` of an Object or External metric, marked `(avg)` for average-value targets. */
function valueTarget(source: JsonObject, status: JsonObject | undefined): string {
  const target = obj(source, 'target');
  if (at(target, 'averageValue') !== undefined) {
    const reading = status === undefined ? undefined : at(status, 'current', 'averageValue');
    const current = reading === undefined ? '<unknown>' : quantityOrNil(reading);
    return `${current}/${quantityOrNil(at(target, 'averageValue'))} (avg)`;
  }
  const current = status === undefined ? '<unknown>' : quantityOrNil(at(status, 'current', 'value'));
  return `${current}/${quantityOrNil(at(target, 'value'))}`;
}

/** `cpu: 40%/80%` or `memory: 100Mi/200Mi` for Resource and ContainerResource metrics. */
function resourceTarget(source: JsonObject, status: JsonObject | undefined): string {
  const name = str(source, 'name');
  const target = obj(source, 'target');
  if (at(target, 'averageValue') !== undefined) {
    const current = status === undefined ? '<unknown>' : quantityOrNil(at(status, 'current', 'averageValue'));
    return `${name}: ${current}/${quantityOrNil(at(target, 'averageValue'))}`;
  }
  const utilization = status === undefined ? undefined : optInt(status, 'current', 'averageUtilization');
  const current = utilization === undefined ? '<unknown>' : `${utilization}%`;
  const goal = optInt(target, 'averageUtilization');
  return `${name}: ${current}/${goal === undefined ? '<auto>' : `${goal}%`}`;
}

const SOURCE_FIELDS: Readonly<Record<string, string>> = {
  External: 'external',
  Pods: 'pods',
  Object: 'object',
  Resource: 'resource',
  ContainerResource: 'containerResource',
};

/** formatHPAMetrics: the first two metrics as `current/target`, then `+ N more...`. */
function formatMetrics(hpa: KubeObject): string {
  const [specs, statuses] = metrics(hpa);
  if (specs.length === 0) return '<none>';
  const max = 2;
  const texts = specs.map((spec, index) => {
    const type = str(spec, 'type');
    if (!Object.hasOwn(SOURCE_FIELDS, type)) return '<unknown type>';
    const field = SOURCE_FIELDS[type]!;
    const source = obj(spec, field);
    // The reading at the same index counts when it has the same kind of source.
    const status = optObj(statuses[index], field);
    switch (type) {
      case 'Pods': {
        const current =
          status === undefined ? '<unknown>' : quantityOrNil(at(status, 'current', 'averageValue'));
        return `${current}/${quantityOrNil(at(source, 'target', 'averageValue'))}`;
      }
      case 'Resource':
      case 'ContainerResource':
        return resourceTarget(source, status);
      default:
        return valueTarget(source, status);
    }
  });
  if (texts.length > max) return `${texts.slice(0, max).join(', ')} + ${texts.length - max} more...`;
  return texts.join(', ');
}

export const horizontalPodAutoscalers: KindPrinter = {
  columns: [
    NAME,
    fieldColumn('Reference', 'string', 'autoscaling/v2beta1.HorizontalPodAutoscalerSpec.scaleTargetRef'),
    fieldColumn('Targets', 'string', 'autoscaling/v2beta1.HorizontalPodAutoscalerSpec.metrics'),
    fieldColumn('MinPods', 'string', 'autoscaling/v2beta1.HorizontalPodAutoscalerSpec.minReplicas'),
    fieldColumn('MaxPods', 'string', 'autoscaling/v2beta1.HorizontalPodAutoscalerSpec.maxReplicas'),
    fieldColumn('Replicas', 'string', 'autoscaling/v2beta1.HorizontalPodAutoscalerStatus.currentReplicas'),
    AGE,
  ],
  row(hpa, now) {
    const reference = `${str(hpa, 'spec', 'scaleTargetRef', 'kind')}/${str(hpa, 'spec', 'scaleTargetRef', 'name')}`;
    const minReplicas = optInt(hpa, 'spec', 'minReplicas');
    return [
      nameOf(hpa),
      reference,
      formatMetrics(hpa),
      minReplicas === undefined ? '<unset>' : String(minReplicas),
      int(hpa, 'spec', 'maxReplicas'),
      int(hpa, 'status', 'currentReplicas'),
      ageOf(hpa, now),
    ];
  },
};

export const scales: KindPrinter = {
  columns: [
    // Kubernetes gives this Name column no `name` format.
    { ...NAME, format: '' },
    fieldColumn('Desired', 'integer', 'autoscaling/v1.ScaleSpec.replicas'),
    fieldColumn('Available', 'integer', 'autoscaling/v1.ScaleStatus.replicas'),
    AGE,
  ],
  row(scale, now) {
    return [
      nameOf(scale),
      int(scale, 'spec', 'replicas'),
      int(scale, 'status', 'replicas'),
      ageOf(scale, now),
    ];
  },
};
