/**
 * The API objects a pod or persistent volume names, as Kubernetes' podutil and pvutil visitors
 * find them: what a kubelet must read to run the pod, so what the Node authorizer lets it read.
 */
import type {
  Container,
  EphemeralContainer,
  PersistentVolume,
  Pod,
  PodSpec,
} from '../../../api/types/core-v1.generated.js';

function allContainers(spec: PodSpec): readonly (Container | EphemeralContainer)[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
}

/** Secrets a pod names: image pull secrets, env and envFrom of every container, volumes. */
export function podSecretNames(spec: PodSpec): string[] {
  const names: string[] = [];
  for (const reference of spec.imagePullSecrets ?? []) names.push(reference.name ?? '');
  for (const container of allContainers(spec)) {
    for (const from of container.envFrom ?? []) if (from.secretRef) names.push(from.secretRef.name ?? '');
    for (const env of container.env ?? []) {
      const ref = env.valueFrom?.secretKeyRef;
      if (ref) names.push(ref.name ?? '');
    }
  }
  for (const volume of spec.volumes ?? []) {
    // One source per volume, checked in the order Kubernetes' visitor uses.
    if (volume.azureFile) names.push(volume.azureFile.secretName);
    else if (volume.cephfs) pushRef(names, volume.cephfs.secretRef);
    else if (volume.cinder) pushRef(names, volume.cinder.secretRef);
    else if (volume.flexVolume) pushRef(names, volume.flexVolume.secretRef);
    else if (volume.projected) {
      for (const source of volume.projected.sources ?? []) {
        if (source.secret) names.push(source.secret.name ?? '');
      }
    } else if (volume.rbd) pushRef(names, volume.rbd.secretRef);
    else if (volume.secret) names.push(volume.secret.secretName ?? '');
    else if (volume.scaleIO) names.push(volume.scaleIO.secretRef.name ?? '');
    else if (volume.iscsi) pushRef(names, volume.iscsi.secretRef);
    else if (volume.storageos) pushRef(names, volume.storageos.secretRef);
    else if (volume.csi) pushRef(names, volume.csi.nodePublishSecretRef);
  }
  return names;
}

function pushRef(names: string[], ref: { name?: string } | undefined): void {
  if (ref) names.push(ref.name ?? '');
}

/** ConfigMaps a pod names: env and envFrom of every container, configMap and projected volumes. */
export function podConfigMapNames(spec: PodSpec): string[] {
  const names: string[] = [];
  for (const container of allContainers(spec)) {
    for (const from of container.envFrom ?? [])
      if (from.configMapRef) names.push(from.configMapRef.name ?? '');
    for (const env of container.env ?? []) {
      const ref = env.valueFrom?.configMapKeyRef;
      if (ref) names.push(ref.name ?? '');
    }
  }
  for (const volume of spec.volumes ?? []) {
    if (volume.projected) {
      for (const source of volume.projected.sources ?? []) {
        if (source.configMap) names.push(source.configMap.name ?? '');
      }
    } else if (volume.configMap) names.push(volume.configMap.name ?? '');
  }
  return names;
}

/** PVCs a pod uses: its claims, and the `<pod>-<volume>` claim of each generic ephemeral volume. */
export function podClaimNames(pod: Pod): string[] {
  const names: string[] = [];
  for (const volume of pod.spec?.volumes ?? []) {
    if (volume.persistentVolumeClaim) names.push(volume.persistentVolumeClaim.claimName);
    else if (volume.ephemeral) names.push(`${pod.metadata?.name ?? ''}-${volume.name}`);
  }
  return names;
}

/**
 * ResourceClaims a pod uses: named claims, and claims made from templates once the pod's status
 * records their generated names (a status entry without a name means no claim was needed).
 */
export function podResourceClaimNames(pod: Pod): string[] {
  const names: string[] = [];
  const statuses = pod.status?.resourceClaimStatuses ?? [];
  for (const claim of pod.spec?.resourceClaims ?? []) {
    if (claim.resourceClaimName) {
      names.push(claim.resourceClaimName);
      continue;
    }
    if (!claim.resourceClaimTemplateName) continue;
    const generated = statuses.find((status) => status.name === claim.name)?.resourceClaimName;
    if (generated) names.push(generated);
  }
  return names;
}

/** A secret a persistent volume names, by namespace and name. */
export interface SecretRef {
  readonly namespace: string;
  readonly name: string;
}

/**
 * The secrets of a persistent volume the kubelet reads when mounting it (not the ones only
 * controllers use, like CSI controller publish/expand secrets). A reference without a namespace
 * means the bound claim's namespace, as volumes written by older clients do.
 */
export function persistentVolumeKubeletSecrets(pv: PersistentVolume): SecretRef[] {
  const spec = pv.spec ?? {};
  const claimNamespace = spec.claimRef?.namespace ?? '';
  const refs: SecretRef[] = [];
  const add = (namespace: string | undefined, name: string | undefined, defaultToClaim = true) => {
    refs.push({ namespace: namespace || (defaultToClaim ? claimNamespace : ''), name: name ?? '' });
  };
  if (spec.azureFile) {
    if (spec.azureFile.secretName) add(spec.azureFile.secretNamespace, spec.azureFile.secretName);
  } else if (spec.cephfs) {
    if (spec.cephfs.secretRef) add(spec.cephfs.secretRef.namespace, spec.cephfs.secretRef.name);
  } else if (spec.cinder) {
    if (spec.cinder.secretRef) add(spec.cinder.secretRef.namespace, spec.cinder.secretRef.name, false);
  } else if (spec.flexVolume) {
    if (spec.flexVolume.secretRef) add(spec.flexVolume.secretRef.namespace, spec.flexVolume.secretRef.name);
  } else if (spec.rbd) {
    if (spec.rbd.secretRef) add(spec.rbd.secretRef.namespace, spec.rbd.secretRef.name);
  } else if (spec.scaleIO) {
    add(spec.scaleIO.secretRef.namespace, spec.scaleIO.secretRef.name);
  } else if (spec.iscsi) {
    if (spec.iscsi.secretRef) add(spec.iscsi.secretRef.namespace, spec.iscsi.secretRef.name);
  } else if (spec.storageos) {
    if (spec.storageos.secretRef)
      add(spec.storageos.secretRef.namespace, spec.storageos.secretRef.name, false);
  } else if (spec.csi) {
    for (const ref of [
      spec.csi.nodePublishSecretRef,
      spec.csi.nodeStageSecretRef,
      spec.csi.nodeExpandSecretRef,
    ]) {
      if (ref) add(ref.namespace, ref.name, false);
    }
  }
  return refs;
}
