// Kubernetes' ordering of API versions (apimachinery's version.CompareKubeAwareVersionStrings), as
// discovery orders the versions of a group and clients pick a preferred one.

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

function stability(kind: string | undefined): number {
  return kind === undefined ? 2 : kind === 'beta' ? 1 : 0;
}

/**
 * Negative when `a` sorts before `b`: Kubernetes-style versions (`v2` before `v1` before `v1beta2`
 * before `v1alpha1`) come first, anything else after them in string order.
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  const ma = KUBE_VERSION.exec(a);
  const mb = KUBE_VERSION.exec(b);
  if (!ma || !mb) {
    if (ma) return -1;
    if (mb) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const byStability = stability(mb[2]) - stability(ma[2]);
  if (byStability !== 0) return byStability;
  const byMajor = Number(mb[1]) - Number(ma[1]);
  if (byMajor !== 0) return byMajor;
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}
