// Taints and tolerations (core/v1 helper): whether a toleration tolerates a taint, and the first
// taint of a node that the pod does not tolerate.
import type { Taint, Toleration } from '../types/core-v1.generated.js';

export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

export function tolerationsTolerateTaint(
  tolerations: readonly Toleration[] | undefined,
  taint: Taint,
): boolean {
  if (tolerations === undefined) return false;
  for (const toleration of tolerations) if (toleratesTaint(toleration, taint)) return true;
  return false;
}

/** NoSchedule and NoExecute taints keep pods off a node; PreferNoSchedule only scores. */
export function isDoNotScheduleTaint(taint: Taint): boolean {
  return taint.effect === 'NoSchedule' || taint.effect === 'NoExecute';
}

export function findMatchingUntoleratedTaint(
  taints: readonly Taint[],
  tolerations: readonly Toleration[] | undefined,
  include: (taint: Taint) => boolean,
): Taint | undefined {
  for (const taint of taints) {
    if (!include(taint)) continue;
    if (!tolerationsTolerateTaint(tolerations, taint)) return taint;
  }
  return undefined;
}
