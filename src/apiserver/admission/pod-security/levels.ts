/**
 * Pod Security levels and versions chosen by namespace labels (pod-security-admission api/helpers.go).
 */

export type Level = 'privileged' | 'baseline' | 'restricted';

/** `'latest'` or the minor number of `v1.<minor>` (Pod Security versions are always major 1). */
export type PolicyVersion = 'latest' | number;

export interface LevelVersion {
  level: Level;
  version: PolicyVersion;
}

export interface Policy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

/** One invalid label, shaped like a Kubernetes field.Invalid error. */
export interface LabelError {
  field: string;
  value: string;
  detail: string;
}

const LABEL_PREFIX = 'pod-security.kubernetes.io/';
export const ENFORCE_LEVEL_LABEL = `${LABEL_PREFIX}enforce`;
export const ENFORCE_VERSION_LABEL = `${LABEL_PREFIX}enforce-version`;
export const AUDIT_LEVEL_LABEL = `${LABEL_PREFIX}audit`;
export const AUDIT_VERSION_LABEL = `${LABEL_PREFIX}audit-version`;
export const WARN_LEVEL_LABEL = `${LABEL_PREFIX}warn`;
export const WARN_VERSION_LABEL = `${LABEL_PREFIX}warn-version`;

export const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];

/** kube-apiserver's built-in defaults when no AdmissionConfiguration sets others. */
export const DEFAULT_POLICY: Policy = {
  enforce: { level: 'privileged', version: 'latest' },
  audit: { level: 'privileged', version: 'latest' },
  warn: { level: 'privileged', version: 'latest' },
};

const VERSION_PATTERN = /^v1\.([0-9]|[1-9][0-9]*)$/;

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

export function parseLevel(value: string): ParseResult<Level> {
  if ((LEVELS as readonly string[]).includes(value)) return { ok: true, value: value as Level };
  return { ok: false, error: `must be one of ${LEVELS.join(', ')}` };
}

export function parseVersion(value: string): ParseResult<PolicyVersion> {
  if (value === 'latest') return { ok: true, value: 'latest' };
  const match = VERSION_PATTERN.exec(value);
  const minor = match ? Number(match[1]) : Number.NaN;
  if (!Number.isSafeInteger(minor)) return { ok: false, error: 'must be "latest" or "v1.x"' };
  return { ok: true, value: minor };
}

export function versionString(version: PolicyVersion): string {
  return version === 'latest' ? 'latest' : `v1.${version}`;
}

/** `restricted:latest`, `baseline:v1.30` — the form used in messages. */
export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`;
}

/** Negative when a is less strict than b, 0 when equal, positive when stricter. */
export function compareLevels(a: Level, b: Level): number {
  return LEVELS.indexOf(a) - LEVELS.indexOf(b);
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && a.version === b.version;
}

export interface PolicyFromLabels {
  policy: Policy;
  errors: LabelError[];
}

/**
 * The policy a namespace's labels select. Invalid values are reported and then fail closed for
 * enforce (restricted, latest) and open for audit and warn (privileged), as Kubernetes does.
 * Without an explicit warn level, warn is raised to a stricter enforce level (and its version).
 */
export function policyFromLabels(
  labels: Readonly<Record<string, string>> | undefined,
  defaults: Policy = DEFAULT_POLICY,
): PolicyFromLabels {
  const policy: Policy = {
    enforce: { ...defaults.enforce },
    audit: { ...defaults.audit },
    warn: { ...defaults.warn },
  };
  const errors: LabelError[] = [];
  if (!labels || Object.keys(labels).length === 0) return { policy, errors };

  const readLevel = (label: string, onError: Level): Level | undefined => {
    const value = labels[label];
    if (value === undefined) return undefined;
    const parsed = parseLevel(value);
    if (parsed.ok) return parsed.value;
    errors.push(labelError(label, value, parsed.error));
    return onError;
  };
  const readVersion = (label: string): PolicyVersion | undefined => {
    const value = labels[label];
    if (value === undefined) return undefined;
    const parsed = parseVersion(value);
    if (parsed.ok) return parsed.value;
    errors.push(labelError(label, value, parsed.error));
    return 'latest';
  };

  const errorsBeforeEnforce = errors.length;
  const enforceLevel = readLevel(ENFORCE_LEVEL_LABEL, 'restricted');
  const hasValidEnforceLevel = enforceLevel !== undefined && errors.length === errorsBeforeEnforce;
  if (enforceLevel !== undefined) policy.enforce.level = enforceLevel;
  const enforceVersion = readVersion(ENFORCE_VERSION_LABEL);
  if (enforceVersion !== undefined) policy.enforce.version = enforceVersion;

  const auditLevel = readLevel(AUDIT_LEVEL_LABEL, 'privileged');
  if (auditLevel !== undefined) policy.audit.level = auditLevel;
  const auditVersion = readVersion(AUDIT_VERSION_LABEL);
  if (auditVersion !== undefined) policy.audit.version = auditVersion;

  const warnLevel = readLevel(WARN_LEVEL_LABEL, 'privileged');
  if (warnLevel !== undefined) policy.warn.level = warnLevel;
  const warnVersion = readVersion(WARN_VERSION_LABEL);
  if (warnVersion !== undefined) policy.warn.version = warnVersion;

  if (
    warnLevel === undefined &&
    hasValidEnforceLevel &&
    compareLevels(policy.enforce.level, policy.warn.level) > 0
  ) {
    policy.warn.level = policy.enforce.level;
    if (warnVersion === undefined) policy.warn.version = policy.enforce.version;
  }
  return { policy, errors };
}

function labelError(label: string, value: string, detail: string): LabelError {
  return { field: `metadata.labels[${label}]`, value, detail };
}

/** One error as Go's field.Error prints it. */
export function formatLabelError(error: LabelError): string {
  return `${error.field}: Invalid value: ${JSON.stringify(error.value)}: ${error.detail}`;
}

/** A list of errors as an aggregate error prints it (`[a, b]` when more than one). */
export function formatLabelErrors(errors: readonly LabelError[]): string {
  const texts = errors.map(formatLabelError);
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
}
