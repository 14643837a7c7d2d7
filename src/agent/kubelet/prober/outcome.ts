// What one probe attempt found, before thresholds: the kubelet's probe.Result and its output.

export type ProbeKind = 'liveness' | 'readiness' | 'startup';

/** `warning` counts as success but is reported (a redirect the probe did not follow). */
export interface ProbeOutcome {
  readonly result: 'success' | 'warning' | 'failure';
  readonly output: string;
}

/** How a probe kind is named in event messages: `Liveness probe failed: ...`. */
export function probeKindTitle(kind: ProbeKind): string {
  return `${kind[0]!.toUpperCase()}${kind.slice(1)}`;
}
