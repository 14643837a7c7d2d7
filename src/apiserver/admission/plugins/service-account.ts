import { randomInt } from 'node:crypto';
import { isMirrorPod } from '../../../api/mirror-pods.js';
import type { KubeObject } from '../../../api/object.js';
import type { PodSpec as CorePodSpec } from '../../../api/types/core-v1.generated.js';
import { podSecretNames } from '../../auth/node/index.js';
import { generateName } from '../../registry/object-meta.js';
import { forbidden } from '../../status.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../chain.js';
import type { ObjectLister } from '../object-cache.js';
import { displayName } from './lookup.js';

const MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
/** Kubernetes' default for the projected token: an hour, plus 7 s so it is recognisably admission-made. */
const TOKEN_EXPIRATION_SECONDS = 3607;

interface Container {
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

interface PodSpec {
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  volumes?: { name: string }[];
  containers?: Container[];
  initContainers?: Container[];
  imagePullSecrets?: { name: string }[];
}

/**
 * The account, retrying for `default` (which a controller creates moments after its
 * namespace): 10 attempts 100-200 ms apart, as Kubernetes' plugin does.
 */
async function lookUp(store: ObjectLister, namespace: string, name: string): Promise<KubeObject | undefined> {
  const attempts = name === 'default' ? 10 : 1;
  const interval = 100 + randomInt(100);
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, interval));
    const account = await store.find(namespace, name);
    if (account) return account;
  }
  return undefined;
}

/**
 * The ServiceAccount admission plugin: a pod runs as `default` unless it names an account,
 * the account must exist, and unless automounting is off the pod gets the projected
 * `kube-api-access-*` volume (bound token, cluster CA, namespace) mounted in every container.
 */
export function serviceAccountAdmission(serviceAccounts: ObjectLister): AdmissionPlugin {
  return {
    name: 'ServiceAccount',
    admit(attributes: AdmissionAttributes) {
      if (
        attributes.operation !== 'CREATE' ||
        attributes.resource.resource !== 'pods' ||
        attributes.subresource
      )
        return;
      return admitPodServiceAccount(attributes);
    },
  };

  async function admitPodServiceAccount(attributes: AdmissionAttributes): Promise<void> {
    const pod = attributes.object;
    // A mirror pod's spec must stay the static pod's (the kubelet compares them); it may
    // reference no account, secret or token instead.
    if (isMirrorPod(pod)) return refuseMirrorPodReferences(pod);
    const spec = (pod.spec ?? {}) as PodSpec;
    if (!spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount || 'default';
    spec.serviceAccount = spec.serviceAccountName;
    const account = await lookUp(serviceAccounts, attributes.namespace, spec.serviceAccountName);
    if (!account) {
      throw forbidden(
        { group: '', resource: 'pods' },
        displayName(pod),
        `error looking up service account ${attributes.namespace}/${spec.serviceAccountName}: serviceaccount "${spec.serviceAccountName}" not found`,
      );
    }
    const accountSpec = account as KubeObject & {
      automountServiceAccountToken?: boolean;
      imagePullSecrets?: { name: string }[];
    };
    if ((spec.imagePullSecrets ?? []).length === 0 && accountSpec.imagePullSecrets?.length) {
      spec.imagePullSecrets = accountSpec.imagePullSecrets.map((s) => ({ name: s.name }));
    }
    const automount = spec.automountServiceAccountToken ?? accountSpec.automountServiceAccountToken ?? true;
    if (!automount) return;
    const containers = [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
    if (containers.some((c) => (c.volumeMounts ?? []).some((m) => m.mountPath === MOUNT_PATH))) return;
    const volumeName = generateName('kube-api-access-');
    spec.volumes = [
      ...(spec.volumes ?? []),
      {
        name: volumeName,
        projected: {
          sources: [
            { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            {
              downwardAPI: {
                items: [
                  { path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } },
                ],
              },
            },
          ],
          defaultMode: 420,
        },
      } as { name: string },
    ];
    for (const container of containers) {
      container.volumeMounts = [
        ...(container.volumeMounts ?? []),
        { name: volumeName, readOnly: true, mountPath: MOUNT_PATH },
      ];
    }
    pod.spec = spec as KubeObject['spec'];
  }
}

function refuseMirrorPodReferences(pod: KubeObject): void {
  const spec = (pod.spec ?? {}) as CorePodSpec;
  const refuse = (message: string) => forbidden({ group: '', resource: 'pods' }, displayName(pod), message);
  if (spec.serviceAccountName) throw refuse('mirror pods may not reference service accounts');
  if (podSecretNames(spec).length > 0) throw refuse('mirror pods may not reference secrets');
  if ((spec.volumes ?? []).some((volume) => volume.projected?.sources?.some((s) => s.serviceAccountToken))) {
    throw refuse('mirror pods may not use service account token volume projection');
  }
}
