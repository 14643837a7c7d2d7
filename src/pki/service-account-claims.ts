// Facts of Kubernetes service-account identities and token claims (k8s.io/apiserver
// authentication/serviceaccount and pkg/serviceaccount of Kubernetes 1.33).

/** `iss` of the long-lived tokens the tokens controller writes into `kubernetes.io/service-account-token` Secrets. */
export const LEGACY_SERVICE_ACCOUNT_ISSUER = 'kubernetes/serviceaccount';

/** The issuer kubeadm and kind configure, and tkube's default. */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

export const SERVICE_ACCOUNT_USERNAME_PREFIX = 'system:serviceaccount:';
export const ALL_SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
export const SERVICE_ACCOUNT_GROUP_PREFIX = 'system:serviceaccounts:';

/** Keys of the user's `extra` a service-account token contributes. */
export const EXTRA_POD_NAME = 'authentication.kubernetes.io/pod-name';
export const EXTRA_POD_UID = 'authentication.kubernetes.io/pod-uid';
export const EXTRA_NODE_NAME = 'authentication.kubernetes.io/node-name';
export const EXTRA_NODE_UID = 'authentication.kubernetes.io/node-uid';
export const EXTRA_CREDENTIAL_ID = 'authentication.kubernetes.io/credential-id';

/** Audit annotation carrying the credential ID of a token TokenRequest just issued. */
export const ISSUED_CREDENTIAL_ID_ANNOTATION = 'authentication.kubernetes.io/issued-credential-id';

/** Legacy-token Secret labels: the date a token was last used, and since when it is refused. */
export const LEGACY_TOKEN_LAST_USED_LABEL = 'kubernetes.io/legacy-token-last-used';
export const LEGACY_TOKEN_INVALID_SINCE_LABEL = 'kubernetes.io/legacy-token-invalid-since';

/** `name`/`uid` of an object a token names; Go omits an empty field. */
export interface ObjectRefClaim {
  name?: string;
  uid?: string;
}

/** The private claim `kubernetes.io` of a bound token. */
export interface KubernetesClaim {
  namespace?: string;
  serviceaccount: ObjectRefClaim;
  pod?: ObjectRefClaim;
  secret?: ObjectRefClaim;
  node?: ObjectRefClaim;
  /** Seconds since the epoch after which an extended (kubelet) token counts as stale. */
  warnafter?: number;
}

/** The payload of a bound (TokenRequest) token. */
export interface BoundTokenClaims {
  aud?: string[];
  exp?: number;
  iat?: number;
  iss: string;
  jti?: string;
  'kubernetes.io'?: KubernetesClaim;
  nbf?: number;
  sub?: string;
}

/** The payload of a legacy, Secret-based token: no audience, no expiry. */
export interface LegacyTokenClaims {
  iss: string;
  'kubernetes.io/serviceaccount/namespace': string;
  'kubernetes.io/serviceaccount/secret.name': string;
  'kubernetes.io/serviceaccount/service-account.name': string;
  'kubernetes.io/serviceaccount/service-account.uid': string;
  sub?: string;
}

/** What an authenticated token says about its service account (Kubernetes' ServiceAccountInfo). */
export interface ServiceAccountInfo {
  namespace: string;
  name: string;
  uid: string;
  podName?: string;
  podUid?: string;
  nodeName?: string;
  nodeUid?: string;
  /** `JTI=<jti>` for bound tokens. */
  credentialId?: string;
}

/**
 * The user a service-account token authenticates as. `system:authenticated` is not in `groups`:
 * Kubernetes' authenticator chain adds it to every authenticated user, tokens or not.
 */
export interface ServiceAccountUser {
  name: string;
  uid: string;
  groups: string[];
  /** Present only when there is something in it (Go leaves the map nil). */
  extra?: Record<string, string[]>;
}

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USERNAME_PREFIX}${namespace}:${name}`;
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The namespace and name in `system:serviceaccount:<ns>:<name>`, or undefined when the user name is
 * not one (Kubernetes' SplitUsername: both parts must be valid object names).
 */
export function splitServiceAccountUsername(
  username: string,
): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_USERNAME_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_USERNAME_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (namespace.length > 63 || !DNS1123_LABEL.test(namespace)) return undefined;
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) return undefined;
  return { namespace, name };
}

export function serviceAccountGroups(namespace: string): string[] {
  return [ALL_SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNT_GROUP_PREFIX}${namespace}`];
}

export function credentialIdForJti(jti: string | undefined): string | undefined {
  return jti ? `JTI=${jti}` : undefined;
}

/** The user info of a service account, with the pod, node and credential extras Kubernetes sets. */
export function serviceAccountUserInfo(info: ServiceAccountInfo): ServiceAccountUser {
  const extra: Record<string, string[]> = {};
  if (info.podName && info.podUid) {
    extra[EXTRA_POD_NAME] = [info.podName];
    extra[EXTRA_POD_UID] = [info.podUid];
  }
  if (info.credentialId) extra[EXTRA_CREDENTIAL_ID] = [info.credentialId];
  if (info.nodeName) {
    extra[EXTRA_NODE_NAME] = [info.nodeName];
    // The node UID is optional: a pod's node may not have existed when the token was issued.
    if (info.nodeUid) extra[EXTRA_NODE_UID] = [info.nodeUid];
  }
  const user: ServiceAccountUser = {
    name: serviceAccountUsername(info.namespace, info.name),
    uid: info.uid,
    groups: serviceAccountGroups(info.namespace),
  };
  if (Object.keys(extra).length > 0) user.extra = extra;
  return user;
}

/** A reference claim as Go writes it: empty fields left out. */
export function objectRefClaim(name: string | undefined, uid: string | undefined): ObjectRefClaim {
  const ref: ObjectRefClaim = {};
  if (name) ref.name = name;
  if (uid) ref.uid = uid;
  return ref;
}
