// API approval of CRDs in the community's protected groups (apihelpers.GetAPIApprovalState): groups
// `k8s.io`, `kubernetes.io` and their subdomains need the `api-approved.kubernetes.io` annotation.

export const KUBE_API_APPROVED_ANNOTATION = 'api-approved.kubernetes.io';

export type ApiApprovalState = 'Invalid' | 'Approved' | 'Bypassed' | 'Missing';

export function isProtectedCommunityGroup(group: string): boolean {
  return (
    group === 'k8s.io' ||
    group.endsWith('.k8s.io') ||
    group === 'kubernetes.io' ||
    group.endsWith('.kubernetes.io')
  );
}

/** Go's url.ParseRequestURI followed by the scheme and host checks upstream makes. */
function isApprovalUrl(text: string): boolean {
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#\s]+/.test(text)) return false;
  try {
    const url = new URL(text);
    return url.host !== '' && url.protocol !== '';
  } catch {
    return false;
  }
}

export function apiApprovalState(annotations: Readonly<Record<string, string>> | undefined): {
  state: ApiApprovalState;
  reason: string;
} {
  const annotation = annotations?.[KUBE_API_APPROVED_ANNOTATION] ?? '';
  if (annotation === '') {
    return {
      state: 'Missing',
      reason: `protected groups must have approval annotation "${KUBE_API_APPROVED_ANNOTATION}", see https://github.com/kubernetes/enhancements/pull/1111`,
    };
  }
  if (annotation.startsWith('unapproved'))
    return { state: 'Bypassed', reason: `not approved: "${annotation}"` };
  if (isApprovalUrl(annotation)) return { state: 'Approved', reason: `approved in ${annotation}` };
  return {
    state: 'Invalid',
    reason: `protected groups must have approval annotation "${KUBE_API_APPROVED_ANNOTATION}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`,
  };
}
