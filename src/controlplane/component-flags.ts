// The upstream components' duration flags a cluster may set (kube-controller-manager's HPA periods
// and node monitor grace period, metrics-server's resolution), named and bounded as upstream's: a
// cluster config gives them as `controllerManager.extraArgs` / `metricsServer.extraArgs`, `tkube up`
// and `start` pass them to the control plane's command line, which reads them back into its settings.
import { parseGoDurationMs } from '../api/go-duration.js';
import { formatGoDuration } from '../apiserver/protobuf/go-format.js';

/** What those flags set, in milliseconds; an absent one keeps upstream's default. */
export interface ComponentFlagSettings {
  /** kube-controller-manager's `--horizontal-pod-autoscaler-sync-period` (15s). */
  readonly horizontalPodAutoscalerSyncPeriodMs?: number;
  /** kube-controller-manager's `--horizontal-pod-autoscaler-downscale-stabilization` (5m0s). */
  readonly horizontalPodAutoscalerDownscaleStabilizationMs?: number;
  /** kube-controller-manager's `--node-monitor-grace-period` (50s): how long a silent node stays Ready. */
  readonly nodeMonitorGracePeriodMs?: number;
  /** metrics-server's `--metric-resolution` (15s): the built-in metrics API's scrape interval. */
  readonly metricResolutionMs?: number;
}

export interface ComponentFlag {
  /** The config file's section whose `extraArgs` takes the flag. */
  readonly component: 'controllerManager' | 'metricsServer';
  readonly setting: keyof ComponentFlagSettings;
  /** The lowest value taken, and whether that value itself is. */
  readonly minimumMs: number;
  readonly minimumIncluded: boolean;
  /** Why the minimum, for the error. */
  readonly minimumReason?: string;
}

/** The flags by upstream name. */
export const COMPONENT_FLAGS: Readonly<Record<string, ComponentFlag>> = {
  // A period of 0 would resync every HPA without pause.
  'horizontal-pod-autoscaler-sync-period': {
    component: 'controllerManager',
    setting: 'horizontalPodAutoscalerSyncPeriodMs',
    minimumMs: 0,
    minimumIncluded: false,
  },
  'horizontal-pod-autoscaler-downscale-stabilization': {
    component: 'controllerManager',
    setting: 'horizontalPodAutoscalerDownscaleStabilizationMs',
    minimumMs: 0,
    minimumIncluded: true,
  },
  // Upstream validates nothing; 0 would make every node Unknown between two heartbeats.
  'node-monitor-grace-period': {
    component: 'controllerManager',
    setting: 'nodeMonitorGracePeriodMs',
    minimumMs: 0,
    minimumIncluded: false,
  },
  // metrics-server's Options.Validate refuses less.
  'metric-resolution': {
    component: 'metricsServer',
    setting: 'metricResolutionMs',
    minimumMs: 10_000,
    minimumIncluded: true,
    minimumReason: "metrics-server's minimum",
  },
};

/** The flag names a config section's `extraArgs` takes. */
export function componentFlagNames(component: ComponentFlag['component']): string[] {
  return Object.entries(COMPONENT_FLAGS)
    .filter(([, flag]) => flag.component === component)
    .map(([name]) => name);
}

/** A flag's value in milliseconds, or why it is refused. */
export function parseComponentFlag(flag: ComponentFlag, text: string): { ms: number } | { error: string } {
  const ms = parseGoDurationMs(text);
  if (ms === undefined) return { error: 'must be a Go duration such as 5s, 1m30s or 500ms' };
  const minimum = formatGoDurationMs(flag.minimumMs);
  if (flag.minimumIncluded ? ms < flag.minimumMs : ms <= flag.minimumMs) {
    const bound = flag.minimumIncluded ? `at least ${minimum}` : `more than ${minimum}`;
    return { error: `must be ${bound}${flag.minimumReason ? ` (${flag.minimumReason})` : ''}` };
  }
  return { ms };
}

/** `5s`, `1m30s`, `500ms`: as Go prints a time.Duration. */
export function formatGoDurationMs(ms: number): string {
  return formatGoDuration(BigInt(Math.round(ms * 1_000_000)));
}

/** The command-line flags for `settings` (`--horizontal-pod-autoscaler-sync-period 5s` …). */
export function componentFlagArgs(settings: ComponentFlagSettings | undefined): string[] {
  if (!settings) return [];
  return Object.entries(COMPONENT_FLAGS).flatMap(([name, flag]) => {
    const ms = settings[flag.setting];
    return ms === undefined ? [] : [`--${name}`, formatGoDurationMs(ms)];
  });
}

/** The flags' declarations for node:util's parseArgs. */
export const COMPONENT_FLAG_OPTIONS: Readonly<Record<string, { type: 'string' }>> = Object.fromEntries(
  Object.keys(COMPONENT_FLAGS).map((name) => [name, { type: 'string' as const }]),
);

/** The settings given by parsed command-line `values`; throws naming a flag whose value is refused. */
export function componentFlagSettingsFrom(
  values: Readonly<Record<string, unknown>>,
): ComponentFlagSettings | undefined {
  const settings: Partial<Record<keyof ComponentFlagSettings, number>> = {};
  for (const [name, flag] of Object.entries(COMPONENT_FLAGS)) {
    const text = values[name];
    if (typeof text !== 'string') continue;
    const parsed = parseComponentFlag(flag, text);
    if ('error' in parsed) throw new Error(`--${name} ${text}: ${parsed.error}`);
    settings[flag.setting] = parsed.ms;
  }
  return Object.keys(settings).length > 0 ? settings : undefined;
}
