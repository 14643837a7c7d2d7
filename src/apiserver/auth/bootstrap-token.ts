import { timingSafeEqual } from 'node:crypto';
import { isJsonObject, type JsonObject, type KubeObject } from '../../api/object.js';

/**
 * Bootstrap tokens (`<id>.<secret>`), the bearer tokens `kubeadm join` and TLS bootstrapping use,
 * checked against `bootstrap.kubernetes.io/token` Secrets in kube-system as kube-apiserver's
 * bootstrap token authenticator does (plugin/pkg/auth/authenticator/token/bootstrap and
 * k8s.io/cluster-bootstrap).
 */

export const BOOTSTRAP_TOKEN_NAMESPACE = 'kube-system';
export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAPPERS_GROUP = 'system:bootstrappers';

/** Keys of a bootstrap-token Secret's `data`. */
export const BOOTSTRAP_TOKEN_KEYS = {
  id: 'token-id',
  secret: 'token-secret',
  expiration: 'expiration',
  extraGroups: 'auth-extra-groups',
  usageAuthentication: 'usage-bootstrap-authentication',
} as const;

const TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const GROUP_PATTERN = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** Reads a Secret in kube-system by name; undefined when there is none. */
export type BootstrapSecretLookup = (name: string) => Promise<KubeObject | undefined>;

/**
 * Why a token was not authenticated. Kubernetes' authenticator answers "not authenticated"
 * without an error in every case (only the log says why): these reasons exist for tests and logs.
 * `not-a-bootstrap-token` is a token of another form, left to the other authenticators.
 */
export type BootstrapTokenRejection =
  | 'not-a-bootstrap-token'
  | 'no-secret'
  | 'being-deleted'
  | 'wrong-type'
  | 'wrong-secret'
  | 'wrong-id'
  | 'expired'
  | 'not-for-authentication'
  | 'invalid-extra-groups';

export interface BootstrapTokenUser {
  name: string;
  /** `system:bootstrappers` and the Secret's extra groups, sorted and de-duplicated. */
  groups: string[];
}

export type BootstrapTokenVerification =
  | { ok: true; user: BootstrapTokenUser }
  | { ok: false; reason: BootstrapTokenRejection; message: string };

/** The id and secret of a token of bootstrap-token form, else undefined. */
export function parseBootstrapToken(token: string): { id: string; secret: string } | undefined {
  const match = TOKEN_PATTERN.exec(token);
  return match ? { id: match[1]!, secret: match[2]! } : undefined;
}

/**
 * Authenticates a bootstrap token: its Secret `bootstrap-token-<id>` must exist and not be
 * deleting, be of the bootstrap-token type, hold the same secret (compared in constant time) and
 * id, not be expired, be marked for authentication and name only valid extra groups.
 */
export async function verifyBootstrapToken(
  token: string,
  lookup: BootstrapSecretLookup,
  now: Date = new Date(),
): Promise<BootstrapTokenVerification> {
  const parsed = parseBootstrapToken(token);
  if (!parsed) return reject('not-a-bootstrap-token', 'token is not of the form <id>.<secret>');
  const secretName = `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${parsed.id}`;
  const secret = await lookup(secretName);
  if (!secret) return reject('no-secret', `No secret of name ${secretName} to match bootstrap bearer token`);
  const problem = (text: string) =>
    `Bootstrap secret ${BOOTSTRAP_TOKEN_NAMESPACE}/${secretName} matching bearer token ${text}`;
  if (secret.metadata?.deletionTimestamp) {
    return reject('being-deleted', problem('is deleted and awaiting removal'));
  }
  const data = secretData(secret);
  if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || !data) {
    return reject('wrong-type', problem(`has invalid type, expected ${BOOTSTRAP_TOKEN_SECRET_TYPE}.`));
  }
  const stored = dataBytes(data, BOOTSTRAP_TOKEN_KEYS.secret);
  const presented = Buffer.from(parsed.secret);
  if (stored.length !== presented.length || !timingSafeEqual(stored, presented)) {
    return reject('wrong-secret', problem(`has invalid value for key ${BOOTSTRAP_TOKEN_KEYS.secret}.`));
  }
  const id = dataString(data, BOOTSTRAP_TOKEN_KEYS.id);
  if (id !== parsed.id) {
    return reject('wrong-id', problem(`has invalid value for key ${BOOTSTRAP_TOKEN_KEYS.id}.`));
  }
  if (bootstrapTokenExpired(dataString(data, BOOTSTRAP_TOKEN_KEYS.expiration), now)) {
    return reject('expired', problem('has expired.'));
  }
  if (dataString(data, BOOTSTRAP_TOKEN_KEYS.usageAuthentication) !== 'true') {
    return reject(
      'not-for-authentication',
      problem(`not marked ${BOOTSTRAP_TOKEN_KEYS.usageAuthentication}=true.`),
    );
  }
  const groups = bootstrapTokenGroups(dataString(data, BOOTSTRAP_TOKEN_KEYS.extraGroups));
  if (typeof groups === 'string') {
    return reject(
      'invalid-extra-groups',
      problem(`has invalid value for key ${BOOTSTRAP_TOKEN_KEYS.extraGroups}: ${groups}.`),
    );
  }
  return { ok: true, user: { name: `${BOOTSTRAP_USER_PREFIX}${id}`, groups } };
}

/**
 * `system:bootstrappers` plus the comma-separated extra groups, sorted and de-duplicated; or,
 * as a string, why an extra group is not a valid bootstrap group.
 */
export function bootstrapTokenGroups(extraGroups: string): string[] | string {
  const groups = new Set([BOOTSTRAPPERS_GROUP]);
  if (extraGroups !== '') {
    for (const group of extraGroups.split(',')) {
      if (!GROUP_PATTERN.test(group)) {
        return `bootstrap group ${JSON.stringify(group)} is invalid (must match \\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\z)`;
      }
      groups.add(group);
    }
  }
  return [...groups].sort();
}

/** Whether an `expiration` value has passed; one that is not RFC 3339 counts as expired. */
export function bootstrapTokenExpired(expiration: string, now: Date): boolean {
  if (expiration === '') return false;
  const at = parseRfc3339(expiration);
  return at === undefined || at - now.getTime() <= 0;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$/;

/** Milliseconds since the epoch of a strict RFC 3339 timestamp (Go's time.RFC3339), else undefined. */
export function parseRfc3339(text: string): number | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (match[8] !== 'Z') {
    const offsetHours = Number(match[10]);
    const offsetMins = Number(match[11]);
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (match[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const fraction = match[7] ? Number(`0${match[7]}`) * 1000 : 0;
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear keeps them as written.
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  date.setUTCFullYear(year);
  return date.getTime() + fraction - offsetMinutes * 60_000;
}

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return leap ? 29 : 28;
}

function reject(reason: BootstrapTokenRejection, message: string): BootstrapTokenVerification {
  return { ok: false, reason, message };
}

/** The Secret's `data` (base64 values), or undefined when it has none (Go's nil map). */
function secretData(secret: KubeObject): JsonObject | undefined {
  return isJsonObject(secret.data) ? secret.data : undefined;
}

function dataBytes(data: JsonObject, key: string): Buffer {
  const value = data[key];
  return typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.alloc(0);
}

function dataString(data: JsonObject, key: string): string {
  return dataBytes(data, key).toString('utf8');
}
