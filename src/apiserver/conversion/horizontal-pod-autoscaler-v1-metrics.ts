// The autoscaling/v1 metric types (v2beta1-shaped) that exist only inside the round-trip
// annotations, converted to and from the internal (v2-shaped) ones as pkg/apis/autoscaling/v1 does.
// A v1 quantity that is not a pointer is written as "0" when the internal one is unset.
import type { JsonObject } from '../../api/object.js';
import {
  type CrossVersionObjectReference,
  type MetricIdentifier,
  type MetricSpec,
  type MetricStatus,
  type MetricTarget,
  readReference,
} from './horizontal-pod-autoscaler-internal.js';
import { compact, type JsonReader } from './json-reader.js';
import { readLabelSelector } from './label-selector.js';

const ZERO = '0';

function reference(given: CrossVersionObjectReference): CrossVersionObjectReference {
  return compact({ kind: given.kind, name: given.name, apiVersion: given.apiVersion });
}

export function writeV1MetricSpec(metric: MetricSpec): JsonObject {
  const { object, pods, resource, containerResource, external } = metric;
  return compact({
    type: metric.type,
    object:
      object &&
      compact({
        target: reference(object.describedObject),
        metricName: object.metric.name,
        targetValue: object.target.value ?? ZERO,
        selector: object.metric.selector,
        averageValue: object.target.averageValue,
      }),
    pods:
      pods &&
      compact({
        metricName: pods.metric.name,
        targetAverageValue: pods.target.averageValue ?? ZERO,
        selector: pods.metric.selector,
      }),
    resource:
      resource &&
      compact({
        name: resource.name,
        targetAverageUtilization: resource.target.averageUtilization,
        targetAverageValue: resource.target.averageValue,
      }),
    containerResource:
      containerResource &&
      compact({
        name: containerResource.name,
        targetAverageUtilization: containerResource.target.averageUtilization,
        targetAverageValue: containerResource.target.averageValue,
        container: containerResource.container,
      }),
    external:
      external &&
      compact({
        metricName: external.metric.name,
        metricSelector: external.metric.selector,
        targetValue: external.target.value,
        targetAverageValue: external.target.averageValue,
      }),
  });
}

export function writeV1MetricStatus(metric: MetricStatus): JsonObject {
  const { object, pods, resource, containerResource, external } = metric;
  return compact({
    type: metric.type,
    object:
      object &&
      compact({
        target: reference(object.describedObject),
        metricName: object.metric.name,
        currentValue: object.current.value ?? ZERO,
        selector: object.metric.selector,
        averageValue: object.current.averageValue,
      }),
    pods:
      pods &&
      compact({
        metricName: pods.metric.name,
        currentAverageValue: pods.current.averageValue ?? ZERO,
        selector: pods.metric.selector,
      }),
    resource:
      resource &&
      compact({
        name: resource.name,
        currentAverageUtilization: resource.current.averageUtilization,
        currentAverageValue: resource.current.averageValue ?? ZERO,
      }),
    containerResource:
      containerResource &&
      compact({
        name: containerResource.name,
        currentAverageUtilization: containerResource.current.averageUtilization,
        currentAverageValue: containerResource.current.averageValue ?? ZERO,
        container: containerResource.container,
      }),
    external:
      external &&
      compact({
        metricName: external.metric.name,
        metricSelector: external.metric.selector,
        currentValue: external.current.value ?? ZERO,
        currentAverageValue: external.current.averageValue,
      }),
  });
}

function identifier(reader: JsonReader, source: JsonObject, selectorField: string): MetricIdentifier {
  return compact({
    name: reader.string(source, 'metricName') ?? '',
    selector: readLabelSelector(reader, source, selectorField),
  });
}

// The target type follows from which v1 fields are set.
function objectTarget(reader: JsonReader, object: JsonObject): MetricTarget {
  const averageValue = reader.quantity(object, 'averageValue');
  return compact({
    type: averageValue === undefined ? 'Value' : 'AverageValue',
    value: reader.quantity(object, 'targetValue') ?? ZERO,
    averageValue,
  });
}

function externalTarget(reader: JsonReader, external: JsonObject): MetricTarget {
  const value = reader.quantity(external, 'targetValue');
  return compact({
    type: value === undefined ? 'AverageValue' : 'Value',
    value,
    averageValue: reader.quantity(external, 'targetAverageValue'),
  });
}

function utilizationTarget(reader: JsonReader, source: JsonObject): MetricTarget {
  const averageUtilization = reader.int32(source, 'targetAverageUtilization');
  return compact({
    type: averageUtilization === undefined ? 'AverageValue' : 'Utilization',
    averageValue: reader.quantity(source, 'targetAverageValue'),
    averageUtilization,
  });
}

/** A v1 MetricSpec from the metrics annotation, as the internal type. */
export function readV1MetricSpec(reader: JsonReader, metric: JsonObject): MetricSpec {
  const object = reader.object(metric, 'object');
  const pods = reader.object(metric, 'pods');
  const resource = reader.object(metric, 'resource');
  const containerResource = reader.object(metric, 'containerResource');
  const external = reader.object(metric, 'external');
  return compact({
    type: reader.string(metric, 'type') ?? '',
    object: object && {
      describedObject: readReference(reader, object, 'target'),
      target: objectTarget(reader, object),
      metric: identifier(reader, object, 'selector'),
    },
    pods: pods && {
      metric: identifier(reader, pods, 'selector'),
      target: { type: 'AverageValue', averageValue: reader.quantity(pods, 'targetAverageValue') ?? ZERO },
    },
    resource: resource && {
      name: reader.string(resource, 'name') ?? '',
      target: utilizationTarget(reader, resource),
    },
    containerResource: containerResource && {
      name: reader.string(containerResource, 'name') ?? '',
      target: utilizationTarget(reader, containerResource),
      container: reader.string(containerResource, 'container') ?? '',
    },
    external: external && {
      metric: identifier(reader, external, 'metricSelector'),
      target: externalTarget(reader, external),
    },
  });
}

/** A v1 MetricStatus from the current-metrics annotation, as the internal type. */
export function readV1MetricStatus(reader: JsonReader, metric: JsonObject): MetricStatus {
  const object = reader.object(metric, 'object');
  const pods = reader.object(metric, 'pods');
  const resource = reader.object(metric, 'resource');
  const containerResource = reader.object(metric, 'containerResource');
  const external = reader.object(metric, 'external');
  const utilizationCurrent = (source: JsonObject) => {
    const averageUtilization = reader.int32(source, 'currentAverageUtilization');
    return compact({
      averageValue: reader.quantity(source, 'currentAverageValue') ?? ZERO,
      averageUtilization,
    });
  };
  return compact({
    type: reader.string(metric, 'type') ?? '',
    object: object && {
      metric: identifier(reader, object, 'selector'),
      current: compact({
        value: reader.quantity(object, 'currentValue') ?? ZERO,
        averageValue: reader.quantity(object, 'averageValue'),
      }),
      describedObject: readReference(reader, object, 'target'),
    },
    pods: pods && {
      metric: identifier(reader, pods, 'selector'),
      current: { averageValue: reader.quantity(pods, 'currentAverageValue') ?? ZERO },
    },
    resource: resource && {
      name: reader.string(resource, 'name') ?? '',
      current: utilizationCurrent(resource),
    },
    containerResource: containerResource && {
      name: reader.string(containerResource, 'name') ?? '',
      current: utilizationCurrent(containerResource),
      container: reader.string(containerResource, 'container') ?? '',
    },
    external: external && {
      metric: identifier(reader, external, 'metricSelector'),
      current: compact({
        value: reader.quantity(external, 'currentValue') ?? ZERO,
        averageValue: reader.quantity(external, 'currentAverageValue'),
      }),
    },
  });
}
