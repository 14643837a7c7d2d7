/**
 * The parts of a pod the Pod Security Standards look at, typed loosely (everything optional)
 * because admission sees the JSON as sent, before or without full validation.
 */

export interface SeccompProfile {
  type?: string;
  localhostProfile?: string;
}

export interface AppArmorProfile {
  type?: string;
  localhostProfile?: string;
}

export interface SELinuxOptions {
  user?: string;
  role?: string;
  type?: string;
  level?: string;
}

export interface WindowsSecurityContextOptions {
  hostProcess?: boolean;
}

export interface ContainerSecurityContext {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  procMount?: string;
  runAsNonRoot?: boolean;
  runAsUser?: number;
  seLinuxOptions?: SELinuxOptions;
  seccompProfile?: SeccompProfile;
  appArmorProfile?: AppArmorProfile;
  windowsOptions?: WindowsSecurityContextOptions;
}

export interface PodSecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  seLinuxOptions?: SELinuxOptions;
  seccompProfile?: SeccompProfile;
  appArmorProfile?: AppArmorProfile;
  windowsOptions?: WindowsSecurityContextOptions;
  sysctls?: { name: string; value?: string }[];
}

export interface PodContainer {
  name?: string;
  image?: string;
  ports?: { hostPort?: number; containerPort?: number }[];
  securityContext?: ContainerSecurityContext;
}

/** A volume: its name plus exactly one source field (`configMap`, `hostPath`, ...). */
export interface PodVolume {
  name?: string;
  [source: string]: unknown;
}

export interface PodSpecForPolicy {
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  os?: { name?: string };
  runtimeClassName?: string;
  securityContext?: PodSecurityContext;
  initContainers?: PodContainer[];
  containers?: PodContainer[];
  ephemeralContainers?: PodContainer[];
  volumes?: PodVolume[];
}

export interface PodMetadataForPolicy {
  name?: string;
  annotations?: Record<string, string>;
}

/** A failed check: `forbiddenReason` is the short label, `forbiddenDetail` says who must change what. */
export interface CheckViolation {
  forbiddenReason: string;
  forbiddenDetail: string;
}

/** A check body: undefined means the pod passes. */
export type CheckPodFn = (meta: PodMetadataForPolicy, spec: PodSpecForPolicy) => CheckViolation | undefined;
