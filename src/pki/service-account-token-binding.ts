import { timingSafeEqual } from 'node:crypto';
import type { KubeObject } from '../api/object.js';
import { goQuote } from '../api/selectors/go-text.js';
import { LEGACY_TOKEN_INVALID_SINCE_LABEL, LEGACY_TOKEN_LAST_USED_LABEL } from './service-account-claims.js';
import {
  TOKEN_LEEWAY_MS,
  type TokenBinding,
  type ValidateBinding,
} from './service-account-token-verifier.js';

/**
 * Reads of the objects tokens are bound to; undefined means not found. The apiserver backs these
 * with its store (reads that bypass authorization: this is the authenticator itself).
 */
export interface BoundObjectLookup {
  getServiceAccount(namespace: string, name: string): Promise<KubeObject | undefined>;
  getPod(namespace: string, name: string): Promise<KubeObject | undefined>;
  getSecret(namespace: string, name: string): Promise<KubeObject | undefined>;
  getNode(name: string): Promise<KubeObject | undefined>;
  /**
   * Optional: labels a legacy token's Secret `kubernetes.io/legacy-token-last-used: <today>`
   * (a merge patch), called at most once a day per Secret as Kubernetes does.
   */
  markLegacyTokenUsed?(namespace: string, secretName: string, today: string): Promise<void>;
}

export interface BindingValidatorOptions {
  now?: () => Date;
}

const INVALIDATED = 'service account token has been invalidated';
const LEGACY_INVALIDATED = 'Token has been invalidated';

/**
 * The existence checks of Kubernetes' service-account validators over `lookup`: the service
 * account, and the Pod, Secret or Node a token is bound to, must exist with the UID the token
 * names and not have been deleting for longer than the leeway. Legacy tokens must still be the
 * token in their Secret. Reasons are Kubernetes' texts.
 */
export function createBindingValidator(
  lookup: BoundObjectLookup,
  options: BindingValidatorOptions = {},
): ValidateBinding {
  const now = options.now ?? (() => new Date());
  return (binding) =>
    binding.kind === 'legacy' ? checkLegacy(lookup, binding, now()) : checkBound(lookup, binding, now());
}

async function checkBound(
  lookup: BoundObjectLookup,
  binding: TokenBinding,
  now: Date,
): Promise<string | undefined> {
  const { namespace, serviceAccount: claim } = binding;
  // Objects whose deletion began within the leeway still count, as tokens and clocks race.
  const deletedLongEnough = (object: KubeObject) => deletedBefore(object, now.getTime() - TOKEN_LEEWAY_MS);

  const serviceAccount = await lookup.getServiceAccount(namespace, claim.name);
  if (!serviceAccount) return `serviceaccounts ${goQuote(claim.name)} not found`;
  const serviceAccountUid = serviceAccount.metadata?.uid ?? '';
  if (serviceAccountUid !== claim.uid) {
    return `service account UID (${serviceAccountUid}) does not match claim (${claim.uid})`;
  }
  if (deletedLongEnough(serviceAccount)) return `service account ${namespace}/${claim.name} has been deleted`;

  if (binding.secret) {
    const secret = await lookup.getSecret(namespace, binding.secret.name ?? '');
    if (!secret) return INVALIDATED;
    const uid = secret.metadata?.uid ?? '';
    if ((binding.secret.uid ?? '') !== uid) {
      return `secret UID (${uid}) does not match service account secret ref claim (${binding.secret.uid ?? ''})`;
    }
    if (deletedLongEnough(secret)) return INVALIDATED;
  }

  if (binding.pod) {
    const pod = await lookup.getPod(namespace, binding.pod.name ?? '');
    if (!pod) return INVALIDATED;
    const uid = pod.metadata?.uid ?? '';
    if ((binding.pod.uid ?? '') !== uid) {
      return `pod UID (${uid}) does not match service account pod ref claim (${binding.pod.uid ?? ''})`;
    }
    if (deletedLongEnough(pod)) return INVALIDATED;
  } else if (binding.node) {
    // Only a token bound to the Node itself is checked; a pod's node is informational.
    const node = await lookup.getNode(binding.node.name ?? '');
    if (!node) return INVALIDATED;
    const uid = node.metadata?.uid ?? '';
    if ((binding.node.uid ?? '') !== uid) {
      return `node UID (${uid}) does not match service account node ref claim (${binding.node.uid ?? ''})`;
    }
    if (deletedLongEnough(node)) return INVALIDATED;
  }
  return undefined;
}

async function checkLegacy(
  lookup: BoundObjectLookup,
  binding: TokenBinding,
  now: Date,
): Promise<string | undefined> {
  const { namespace, serviceAccount: claim } = binding;
  const secretName = binding.secret?.name ?? '';
  const secret = await lookup.getSecret(namespace, secretName);
  if (!secret || secret.metadata?.deletionTimestamp) return LEGACY_INVALIDATED;
  if (!sameToken(secret, binding.token)) return "Token does not match server's copy";

  const serviceAccount = await lookup.getServiceAccount(namespace, claim.name);
  if (!serviceAccount) return `serviceaccounts ${goQuote(claim.name)} not found`;
  if (serviceAccount.metadata?.deletionTimestamp)
    return `ServiceAccount ${namespace}/${claim.name} has been deleted`;
  const serviceAccountUid = serviceAccount.metadata?.uid ?? '';
  if (serviceAccountUid !== claim.uid) {
    return `ServiceAccount UID (${serviceAccountUid}) does not match claim (${claim.uid})`;
  }

  await markUsed(lookup, secret, namespace, secretName, now);
  if (secret.metadata?.labels?.[LEGACY_TOKEN_INVALID_SINCE_LABEL]) {
    return (
      `the token in secret ${namespace}/${secretName} for service account ${namespace}/${claim.name} has been ` +
      'marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove ' +
      `the '${LEGACY_TOKEN_INVALID_SINCE_LABEL}' label from the secret to temporarily allow use of this token`
    );
  }
  return undefined;
}

/** Whether the Secret's `data.token` (base64) is this token, compared in constant time. */
function sameToken(secret: KubeObject, token: string): boolean {
  const data = secret.data;
  const encoded =
    typeof data === 'object' && data !== null ? (data as Record<string, unknown>).token : undefined;
  if (typeof encoded !== 'string') return false;
  const stored = Buffer.from(encoded, 'base64');
  const presented = Buffer.from(token);
  return stored.length === presented.length && timingSafeEqual(stored, presented);
}

async function markUsed(
  lookup: BoundObjectLookup,
  secret: KubeObject,
  namespace: string,
  secretName: string,
  now: Date,
): Promise<void> {
  if (!lookup.markLegacyTokenUsed) return;
  const today = now.toISOString().slice(0, 10);
  const tomorrow = new Date(now.getTime() + 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
  const lastUsed = secret.metadata?.labels?.[LEGACY_TOKEN_LAST_USED_LABEL];
  if (lastUsed === today || lastUsed === tomorrow) return;
  try {
    await lookup.markLegacyTokenUsed(namespace, secretName, today);
  } catch {
    // Tracking is best effort: Kubernetes logs the failure and authenticates the token anyway.
  }
}

function deletedBefore(object: KubeObject, limitMs: number): boolean {
  const deletion = object.metadata?.deletionTimestamp;
  return deletion !== undefined && Date.parse(deletion) < limitMs;
}
