// Pod failure policy (pkg/controller/job/pod_failure_policy.go): the first rule matching a failed
// pod — on a container's non-zero exit code, or on one of the pod's conditions — decides whether
// the failure fails the Job, fails the pod's index, is ignored or is counted as usual.
import type { PodFailurePolicy, PodFailurePolicyRule } from '../../api/types/batch-v1.generated.js';
import type { ContainerStatus, Pod } from '../../api/types/core-v1.generated.js';

export type PodFailureAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

export interface PodFailureMatch {
  /** The message a FailJob or FailIndex rule gives the Job's condition; undefined for the others. */
  readonly message: string | undefined;
  readonly action: PodFailureAction;
}

/** The action for a failed pod, or undefined when no rule matches (the failure counts). */
export function matchPodFailurePolicy(
  policy: PodFailurePolicy | undefined,
  pod: Pod,
): PodFailureMatch | undefined {
  const podName = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
  for (const [index, rule] of (policy?.rules ?? []).entries()) {
    const action = rule.action as PodFailureAction;
    const container = rule.onExitCodes ? matchingContainer(rule, pod) : undefined;
    if (container) {
      const code = container.state?.terminated?.exitCode;
      const message = `Container ${container.name} for pod ${podName} failed with exit code ${code} matching ${action} rule at index ${index}`;
      return { action, message: action === 'FailJob' || action === 'FailIndex' ? message : undefined };
    }
    const condition = rule.onPodConditions ? matchingCondition(rule, pod) : undefined;
    if (condition) {
      const message = `Pod ${podName} has condition ${condition} matching ${action} rule at index ${index}`;
      return { action, message: action === 'FailJob' || action === 'FailIndex' ? message : undefined };
    }
  }
  return undefined;
}

function matchingContainer(rule: PodFailurePolicyRule, pod: Pod): ContainerStatus | undefined {
  const requirement = rule.onExitCodes;
  if (!requirement) return undefined;
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  return statuses.find((status) => {
    if (requirement.containerName && requirement.containerName !== status.name) return false;
    const code = status.state?.terminated?.exitCode;
    // A zero exit code never matches: the container succeeded.
    if (code === undefined || code === 0) return false;
    const listed = requirement.values.includes(code);
    return requirement.operator === 'In' ? listed : requirement.operator === 'NotIn' ? !listed : false;
  });
}

function matchingCondition(rule: PodFailurePolicyRule, pod: Pod): string | undefined {
  for (const pattern of rule.onPodConditions ?? []) {
    const condition = pod.status?.conditions?.find((c) => c.type === pattern.type);
    if (condition && condition.status === (pattern.status || 'True')) return pattern.type;
  }
  return undefined;
}
