// The claims a pod uses (upstream's volumeutil pvc helpers): a persistentVolumeClaim volume names
// its claim; a generic ephemeral volume's claim is `<pod>-<volume>`.
import type { Pod } from '../types/core-v1.generated.js';

export function claimNamesOfPod(pod: Pod): string[] {
  const names: string[] = [];
  for (const volume of pod.spec?.volumes ?? []) {
    if (volume.persistentVolumeClaim?.claimName) names.push(volume.persistentVolumeClaim.claimName);
    else if (volume.ephemeral) names.push(`${pod.metadata?.name ?? ''}-${volume.name}`);
  }
  return names;
}
