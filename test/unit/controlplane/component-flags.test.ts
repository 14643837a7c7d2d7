// The control plane's upstream duration flags: read from its command line into its settings,
// passed on to the control planes a supervisor starts, refused below their components' minimums;
// the controllers' defaults are the HPA controller's own, and each controller-manager flag has one.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CLUSTER_SETTINGS } from '../../../src/controllers/context.js';
import { DEFAULT_SYNC_PERIOD_MS } from '../../../src/controllers/podautoscaler/horizontal-controller.js';
import { DEFAULT_DOWNSCALE_STABILIZATION_MS } from '../../../src/controllers/podautoscaler/normalization.js';
import {
  COMPONENT_FLAGS,
  componentFlagArgs,
  componentFlagNames,
} from '../../../src/controlplane/component-flags.js';
import { parseCommandLine, replicaArgs } from '../../../src/controlplane/run.js';

const BASE = ['--state-dir', '/tmp/c', '--api-port', '6443'];

describe('component flags on the control plane command line', () => {
  it('reads them into milliseconds and passes them on to replicas', () => {
    const args = parseCommandLine(
      [
        ...BASE,
        '--horizontal-pod-autoscaler-sync-period',
        '2.5s',
        '--horizontal-pod-autoscaler-downscale-stabilization',
        '0',
        '--node-monitor-grace-period',
        '20000ms',
        '--metric-resolution',
        '1m',
      ],
      {},
    );
    expect(args.componentFlags).toEqual({
      horizontalPodAutoscalerSyncPeriodMs: 2500,
      horizontalPodAutoscalerDownscaleStabilizationMs: 0,
      nodeMonitorGracePeriodMs: 20_000,
      metricResolutionMs: 60_000,
    });
    // A replica is started with the same flags, in Go's own spelling of the values.
    const childArgs = replicaArgs(args);
    expect(childArgs).toEqual([
      '--horizontal-pod-autoscaler-sync-period',
      '2.5s',
      '--horizontal-pod-autoscaler-downscale-stabilization',
      '0s',
      '--node-monitor-grace-period',
      '20s',
      '--metric-resolution',
      '1m0s',
    ]);
    expect(parseCommandLine([...BASE, ...childArgs], {}).componentFlags).toEqual(args.componentFlags);
  });

  it('leaves them out when none is given', () => {
    expect(parseCommandLine(BASE, {}).componentFlags).toBeUndefined();
    expect(componentFlagArgs(undefined)).toEqual([]);
    expect(componentFlagArgs({})).toEqual([]);
  });

  it.each([
    [
      ['--metric-resolution', '9s'],
      "--metric-resolution 9s: must be at least 10s (metrics-server's minimum)",
    ],
    [
      ['--horizontal-pod-autoscaler-sync-period', '0s'],
      '--horizontal-pod-autoscaler-sync-period 0s: must be more than 0s',
    ],
    [['--node-monitor-grace-period=-5s'], '--node-monitor-grace-period -5s: must be more than 0s'],
    [
      ['--horizontal-pod-autoscaler-downscale-stabilization', 'soon'],
      '--horizontal-pod-autoscaler-downscale-stabilization soon: must be a Go duration such as 5s, 1m30s or 500ms',
    ],
  ])('refuses %j', (flag, message) => {
    expect(() => parseCommandLine([...BASE, ...flag], {})).toThrow(message);
  });

  it("defaults the controllers' HPA settings to the HPA controller's own defaults (15s, 5m0s)", () => {
    expect(DEFAULT_CLUSTER_SETTINGS.horizontalPodAutoscalerSyncPeriodMs).toBe(DEFAULT_SYNC_PERIOD_MS);
    expect(DEFAULT_CLUSTER_SETTINGS.horizontalPodAutoscalerDownscaleStabilizationMs).toBe(
      DEFAULT_DOWNSCALE_STABILIZATION_MS,
    );
    expect([DEFAULT_SYNC_PERIOD_MS, DEFAULT_DOWNSCALE_STABILIZATION_MS]).toEqual([15_000, 300_000]);
  });

  it("names a controller setting, with upstream's default, for each controller-manager flag", () => {
    const defaults = new Map(Object.entries(DEFAULT_CLUSTER_SETTINGS));
    for (const name of componentFlagNames('controllerManager')) {
      expect(defaults.get(COMPONENT_FLAGS[name]!.setting), name).toBeTypeOf('number');
    }
    // 50s since Kubernetes 1.32.
    expect(DEFAULT_CLUSTER_SETTINGS.nodeMonitorGracePeriodMs).toBe(50_000);
  });
});
