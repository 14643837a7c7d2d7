// The autoscaling.alpha.kubernetes.io/behavior annotation of autoscaling/v1. Kubernetes marshals
// its internal type there, which has no JSON tags: keys are Go field names, nil pointers and
// slices are written as null. Reading goes through encoding/json, so keys match in any case.
import { isJsonObject, type JsonObject } from '../../api/object.js';
import { encodeJsonLikeGo } from '../discovery/go-json.js';
import type { Behavior, ScalingRules } from './horizontal-pod-autoscaler-internal.js';
import { compact, JsonReader } from './json-reader.js';

function writeRules(rules: ScalingRules | undefined): JsonObject | null {
  if (rules === undefined) return null;
  return {
    StabilizationWindowSeconds: rules.stabilizationWindowSeconds ?? null,
    SelectPolicy: rules.selectPolicy ?? null,
    Policies:
      rules.policies?.map((policy) => ({
        Type: policy.type,
        Value: policy.value,
        PeriodSeconds: policy.periodSeconds,
      })) ?? null,
    Tolerance: rules.tolerance ?? null,
  };
}

export function writeBehaviorAnnotation(behavior: Behavior): string {
  return encodeJsonLikeGo({
    ScaleUp: writeRules(behavior.scaleUp),
    ScaleDown: writeRules(behavior.scaleDown),
  });
}

function readRules(reader: JsonReader, behavior: JsonObject, name: string): ScalingRules | undefined {
  const rules = reader.object(behavior, name);
  if (rules === undefined) return undefined;
  return compact({
    stabilizationWindowSeconds: reader.int32(rules, 'StabilizationWindowSeconds'),
    selectPolicy: reader.string(rules, 'SelectPolicy'),
    policies: reader.objects(rules, 'Policies')?.map((policy) => ({
      type: reader.string(policy, 'Type') ?? '',
      value: reader.int32(policy, 'Value') ?? 0,
      periodSeconds: reader.int32(policy, 'PeriodSeconds') ?? 0,
    })),
    tolerance: reader.quantity(rules, 'Tolerance'),
  });
}

/**
 * The behavior the annotation holds; undefined when it does not decode or sets neither
 * direction (Kubernetes then leaves spec.behavior unset).
 */
export function readBehaviorAnnotation(text: string): Behavior | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(parsed)) return undefined;
  const reader = new JsonReader(true);
  const behavior = compact({
    scaleUp: readRules(reader, parsed, 'ScaleUp'),
    scaleDown: readRules(reader, parsed, 'ScaleDown'),
  });
  if (reader.failed || (behavior.scaleUp === undefined && behavior.scaleDown === undefined)) return undefined;
  return behavior;
}
