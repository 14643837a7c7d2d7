/**
 * The Pod Security Standards checks, by level and policy version, and their evaluation in
 * Kubernetes' order: baseline checks sorted by ID, then restricted checks sorted by ID.
 */

import * as context from './baseline-context-checks.js';
import * as host from './baseline-host-checks.js';
import type { Level, PolicyVersion } from './levels.js';
import * as restricted from './restricted-checks.js';
import type { CheckPodFn, CheckViolation, PodMetadataForPolicy, PodSpecForPolicy } from './types.js';

interface VersionedCheck {
  /** First v1.<minor> this implementation applies to. */
  sinceMinor: number;
  check: CheckPodFn;
  /** Baseline checks this restricted check replaces at the restricted level. */
  overrides?: readonly string[];
}

interface CheckDefinition {
  id: string;
  level: 'baseline' | 'restricted';
  versions: readonly VersionedCheck[];
}

const CHECKS: readonly CheckDefinition[] = [
  { id: 'appArmorProfile', level: 'baseline', versions: [{ sinceMinor: 0, check: context.appArmorProfile }] },
  {
    id: 'capabilities_baseline',
    level: 'baseline',
    versions: [{ sinceMinor: 0, check: context.capabilitiesBaseline }],
  },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ sinceMinor: 0, check: host.hostNamespaces }] },
  { id: 'hostPathVolumes', level: 'baseline', versions: [{ sinceMinor: 0, check: host.hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ sinceMinor: 0, check: host.hostPorts }] },
  { id: 'privileged', level: 'baseline', versions: [{ sinceMinor: 0, check: host.privileged }] },
  { id: 'procMount', level: 'baseline', versions: [{ sinceMinor: 0, check: context.procMount }] },
  {
    id: 'seLinuxOptions',
    level: 'baseline',
    versions: [
      { sinceMinor: 0, check: context.seLinuxOptions1_0 },
      { sinceMinor: 31, check: context.seLinuxOptions1_31 },
    ],
  },
  {
    id: 'seccompProfile_baseline',
    level: 'baseline',
    versions: [
      { sinceMinor: 0, check: context.seccompProfileBaseline1_0 },
      { sinceMinor: 19, check: context.seccompProfileBaseline1_19 },
    ],
  },
  {
    id: 'sysctls',
    level: 'baseline',
    versions: [
      { sinceMinor: 0, check: context.sysctls1_0 },
      { sinceMinor: 27, check: context.sysctls1_27 },
      { sinceMinor: 29, check: context.sysctls1_29 },
      { sinceMinor: 32, check: context.sysctls1_32 },
    ],
  },
  {
    id: 'windowsHostProcess',
    level: 'baseline',
    versions: [{ sinceMinor: 0, check: host.windowsHostProcess }],
  },
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    versions: [
      { sinceMinor: 8, check: restricted.allowPrivilegeEscalation1_8 },
      { sinceMinor: 25, check: restricted.allowPrivilegeEscalation1_25 },
    ],
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    versions: [
      { sinceMinor: 22, check: restricted.capabilitiesRestricted1_22, overrides: ['capabilities_baseline'] },
      { sinceMinor: 25, check: restricted.capabilitiesRestricted1_25, overrides: ['capabilities_baseline'] },
    ],
  },
  {
    id: 'restrictedVolumes',
    level: 'restricted',
    versions: [{ sinceMinor: 0, check: restricted.restrictedVolumes, overrides: ['hostPathVolumes'] }],
  },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ sinceMinor: 0, check: restricted.runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ sinceMinor: 23, check: restricted.runAsUser1_23 }] },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    versions: [
      {
        sinceMinor: 19,
        check: restricted.seccompProfileRestricted1_19,
        overrides: ['seccompProfile_baseline'],
      },
      {
        sinceMinor: 25,
        check: restricted.seccompProfileRestricted1_25,
        overrides: ['seccompProfile_baseline'],
      },
    ],
  },
];

const byId = (a: CheckDefinition, b: CheckDefinition): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const ORDERED_CHECKS = [
  ...CHECKS.filter((c) => c.level === 'baseline').sort(byId),
  ...CHECKS.filter((c) => c.level === 'restricted').sort(byId),
];

export interface SelectedCheck {
  id: string;
  check: CheckPodFn;
}

/** The implementation of a check in force at a version, if the check exists there yet. */
function versionAt(definition: CheckDefinition, version: PolicyVersion): VersionedCheck | undefined {
  const minor = version === 'latest' ? Number.POSITIVE_INFINITY : version;
  return definition.versions.filter((v) => v.sinceMinor <= minor).at(-1);
}

/** The checks a level runs at a version, in evaluation order. Versions past the newest check act as latest. */
export function checksFor(level: Level, version: PolicyVersion = 'latest'): SelectedCheck[] {
  if (level === 'privileged') return [];
  const applicable = ORDERED_CHECKS.filter((c) => c.level === 'baseline' || level === 'restricted')
    .map((definition) => ({ definition, selected: versionAt(definition, version) }))
    .filter((entry): entry is { definition: CheckDefinition; selected: VersionedCheck } => !!entry.selected);
  const overridden = new Set(applicable.flatMap((entry) => entry.selected.overrides ?? []));
  return applicable
    .filter((entry) => !overridden.has(entry.definition.id))
    .map((entry) => ({ id: entry.definition.id, check: entry.selected.check }));
}

/** Every violation of the level's checks at the version (default latest), in Kubernetes' order. */
export function evaluatePod(
  level: Level,
  podMetadata: PodMetadataForPolicy | undefined,
  podSpec: PodSpecForPolicy | undefined,
  version: PolicyVersion = 'latest',
): CheckViolation[] {
  const meta = podMetadata ?? {};
  const spec = podSpec ?? {};
  const violations: CheckViolation[] = [];
  for (const { check } of checksFor(level, version)) {
    const violation = check(meta, spec);
    if (violation) violations.push(violation);
  }
  return violations;
}

const UNKNOWN_FORBIDDEN_REASON = 'unknown forbidden reason';

/** `reason (detail), reason (detail)` — how the violations read in the denial or warning. */
export function formatViolations(violations: readonly CheckViolation[]): string {
  return violations
    .map((v) => {
      const reason = v.forbiddenReason || UNKNOWN_FORBIDDEN_REASON;
      return v.forbiddenDetail ? `${reason} (${v.forbiddenDetail})` : reason;
    })
    .join(', ');
}

/** `reason, reason` — the short form, without details (warnings about a namespace's existing pods). */
export function formatViolationReasons(violations: readonly CheckViolation[]): string {
  return violations.map((v) => v.forbiddenReason || UNKNOWN_FORBIDDEN_REASON).join(', ');
}
