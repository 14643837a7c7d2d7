// Security contexts as the kubelet passes them to the runtime (pkg/kubelet/kuberuntime/
// security_context.go, pkg/securitycontext): the container's settings over the pod's, the
// image's user when none is set, namespaces, masked /proc paths, and the runAsNonRoot check.
import type {
  Container,
  Pod,
  SeccompProfile,
  SecurityContext,
} from '../../../api/types/core-v1.generated.js';
import type {
  LinuxContainerSecurityContext,
  LinuxSandboxSecurityContext,
  NamespaceOption,
  SecurityProfile,
} from '../cri/types.js';

const SECCOMP_ROOT = '/var/lib/kubelet/seccomp';

const DEFAULT_MASKED_PATHS = [
  '/proc/asound',
  '/proc/acpi',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/sys/firmware',
  '/sys/devices/virtual/powercap',
];
const DEFAULT_READONLY_PATHS = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];

/** `name_namespace(uid)`, how the kubelet names a pod in messages (format.Pod). */
export function formatPod(pod: Pod): string {
  const meta = pod.metadata ?? {};
  return `${meta.name ?? ''}_${meta.namespace ?? ''}(${meta.uid ?? ''})`;
}

/** The pod's security settings overridden by the container's own (DetermineEffectiveSecurityContext). */
export function effectiveSecurityContext(pod: Pod, container: Container): SecurityContext {
  const podSc = pod.spec?.securityContext ?? {};
  const sc = container.securityContext ?? {};
  return {
    ...sc,
    runAsUser: sc.runAsUser ?? podSc.runAsUser,
    runAsGroup: sc.runAsGroup ?? podSc.runAsGroup,
    runAsNonRoot: sc.runAsNonRoot ?? podSc.runAsNonRoot,
    seLinuxOptions: sc.seLinuxOptions ?? podSc.seLinuxOptions,
    seccompProfile: sc.seccompProfile ?? podSc.seccompProfile,
    appArmorProfile: sc.appArmorProfile ?? podSc.appArmorProfile,
  };
}

/** The user an image runs as without runAsUser: a uid, else a user name (root when neither). */
export interface ImageUser {
  readonly uid?: number;
  readonly username?: string;
}

/** The runAsNonRoot check; the message of the error is what the container status shows. */
export function verifyRunAsNonRoot(pod: Pod, container: Container, image: ImageUser): string | undefined {
  const sc = effectiveSecurityContext(pod, container);
  if (sc.runAsNonRoot !== true) return undefined;
  const where = `(pod: "${formatPod(pod)}", container: ${container.name})`;
  if (sc.runAsUser !== undefined) {
    return sc.runAsUser === 0 ? `container's runAsUser breaks non-root policy ${where}` : undefined;
  }
  if (image.uid === 0 || (image.uid === undefined && !image.username)) {
    return `container has runAsNonRoot and image will run as root ${where}`;
  }
  if (image.uid === undefined && image.username) {
    return `container has runAsNonRoot and image has non-numeric user (${image.username}), cannot verify user is non-root ${where}`;
  }
  return undefined;
}

export function namespaceOptions(pod: Pod): NamespaceOption {
  const spec = pod.spec ?? { containers: [] };
  return {
    network: spec.hostNetwork ? 'NODE' : 'POD',
    pid: spec.hostPID ? 'NODE' : spec.shareProcessNamespace ? 'POD' : 'CONTAINER',
    ipc: spec.hostIPC ? 'NODE' : 'POD',
  };
}

function seccomp(profile: SeccompProfile | undefined): SecurityProfile {
  switch (profile?.type) {
    case 'RuntimeDefault':
      return { profileType: 'RuntimeDefault' };
    case 'Localhost':
      return { profileType: 'Localhost', localhostRef: `${SECCOMP_ROOT}/${profile.localhostProfile ?? ''}` };
    default:
      // Kubernetes runs containers unconfined unless a profile is asked for (SeccompDefault off).
      return { profileType: 'Unconfined' };
  }
}

function supplementalGroups(pod: Pod): number[] {
  const podSc = pod.spec?.securityContext;
  return [...(podSc?.fsGroup !== undefined ? [podSc.fsGroup] : []), ...(podSc?.supplementalGroups ?? [])];
}

export function containerSecurityContext(
  pod: Pod,
  container: Container,
  image: ImageUser,
): LinuxContainerSecurityContext {
  const sc = effectiveSecurityContext(pod, container);
  const result: LinuxContainerSecurityContext = {
    privileged: sc.privileged === true,
    readonlyRootfs: sc.readOnlyRootFilesystem === true,
    namespaceOptions: namespaceOptions(pod),
    supplementalGroups: supplementalGroups(pod),
    noNewPrivs: sc.allowPrivilegeEscalation === false,
    seccomp: seccomp(sc.seccompProfile),
  };
  if (sc.capabilities) {
    result.capabilities = {
      addCapabilities: [...(sc.capabilities.add ?? [])],
      dropCapabilities: [...(sc.capabilities.drop ?? [])],
    };
  }
  if (sc.procMount !== 'Unmasked') {
    result.maskedPaths = DEFAULT_MASKED_PATHS;
    result.readonlyPaths = DEFAULT_READONLY_PATHS;
  }
  if (sc.runAsUser !== undefined) result.runAsUser = { value: sc.runAsUser };
  else if (image.uid !== undefined) result.runAsUser = { value: image.uid };
  else if (image.username) result.runAsUsername = image.username;
  if (sc.runAsGroup !== undefined) result.runAsGroup = { value: sc.runAsGroup };
  if (sc.seLinuxOptions) result.selinuxOptions = { ...sc.seLinuxOptions };
  if (sc.appArmorProfile?.type === 'Unconfined') result.apparmor = { profileType: 'Unconfined' };
  else if (sc.appArmorProfile?.type === 'RuntimeDefault') result.apparmor = { profileType: 'RuntimeDefault' };
  else if (sc.appArmorProfile?.type === 'Localhost') {
    result.apparmor = { profileType: 'Localhost', localhostRef: sc.appArmorProfile.localhostProfile ?? '' };
  }
  return result;
}

/** Whether any container of the pod (init containers too) is privileged. */
export function hasPrivilegedContainer(pod: Pod): boolean {
  const all = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  return all.some((container) => container.securityContext?.privileged === true);
}

export function sandboxSecurityContext(pod: Pod): LinuxSandboxSecurityContext {
  const podSc = pod.spec?.securityContext;
  const result: LinuxSandboxSecurityContext = {
    namespaceOptions: namespaceOptions(pod),
    privileged: hasPrivilegedContainer(pod),
    // The pause process may always run under the runtime's default profile (kubernetes#84623).
    seccomp: { profileType: 'RuntimeDefault' },
    supplementalGroups: supplementalGroups(pod),
  };
  if (podSc?.runAsUser !== undefined) result.runAsUser = { value: podSc.runAsUser };
  if (podSc?.runAsGroup !== undefined) result.runAsGroup = { value: podSc.runAsGroup };
  if (podSc?.seLinuxOptions) result.selinuxOptions = { ...podSc.seLinuxOptions };
  return result;
}
