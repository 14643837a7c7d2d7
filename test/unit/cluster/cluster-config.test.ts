// The cluster config file: a full kind-like document is read, defaults fill what is left out,
// every problem is reported with its field path, and the published JSON Schema names the same
// fields the validator accepts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clusterConfigFrom, readClusterConfig } from '../../../src/cluster/config/cluster-config.js';
import { componentFlagNames } from '../../../src/controlplane/component-flags.js';
import { repoRoot } from '../../support/cli.js';
import { tempDir } from '../../support/temp.js';

describe('cluster config', () => {
  it('reads a full YAML document', async () => {
    const path = join(tempDir(), 'cluster.yaml');
    writeFileSync(
      path,
      `apiVersion: tkube.dev/v1alpha1
kind: Cluster
name: dev
nodes:
  - role: control-plane
    labels: {ingress-ready: "true"}
    extraPortMappings:
      - {containerPort: 80, hostPort: 8080, listenAddress: 127.0.0.1, protocol: TCP}
  - role: worker
    extraMounts:
      - {hostPath: /tmp/data, containerPath: /data, readOnly: true}
networking:
  podSubnet: 10.100.0.0/16
  apiServerPort: 6443
`,
    );
    expect(await readClusterConfig(path)).toEqual({
      name: 'dev',
      nodes: [
        {
          role: 'control-plane',
          labels: { 'ingress-ready': 'true' },
          extraPortMappings: [
            { containerPort: 80, hostPort: 8080, listenAddress: '127.0.0.1', protocol: 'TCP' },
          ],
          extraMounts: [],
        },
        {
          role: 'worker',
          labels: {},
          extraPortMappings: [],
          extraMounts: [{ hostPath: '/tmp/data', containerPath: '/data', readOnly: true }],
        },
      ],
      networking: { podSubnet: '10.100.0.0/16', serviceSubnet: '10.96.0.0/16', apiServerPort: 6443 },
    });
  });

  it('defaults to one control-plane node and the default networks', () => {
    expect(clusterConfigFrom({ apiVersion: 'tkube.dev/v1alpha1', kind: 'Cluster' }, 'c.yaml')).toEqual({
      nodes: [{ role: 'control-plane', labels: {}, extraPortMappings: [], extraMounts: [] }],
      networking: { podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/16' },
    });
  });

  it('reports every problem with its path, in one line', () => {
    const attempt = () =>
      clusterConfigFrom(
        {
          apiVersion: 'tkube.dev/v1beta1',
          kind: 'Cluster',
          nodes: [
            { role: 'master', extraPortMappings: [{ hostPort: 70000 }], colour: 'red' },
            { role: 'control-plane', extraMounts: [{ hostPath: 'relative', containerPath: '/x' }] },
            { role: 'control-plane', labels: { 'bad key!': 'x' } },
          ],
          networking: { podSubnet: '10.244.1.0/16', serviceSubnet: '10.97.0.0/16' },
        },
        'c.yaml',
      );
    expect(attempt).toThrow(
      [
        "invalid cluster config c.yaml: apiVersion: must be tkube.dev/v1alpha1 (or kind's kind.x-k8s.io/v1alpha4)",
        'nodes[0].colour: unknown field',
        'nodes[0].role: must be "control-plane" or "worker"',
        'nodes[0].extraPortMappings[0].containerPort: required',
        'nodes[0].extraPortMappings[0].hostPort: must be a port number from 0 to 65535',
        'nodes[1].extraMounts[0].hostPath: must be an absolute path',
        'nodes[2].labels.bad key!: not a valid label key',
        'nodes: at most one node can have the control-plane role',
        'networking.podSubnet: must be an IPv4 CIDR with its host bits zero, e.g. 10.244.0.0/16',
        'networking.serviceSubnet: only 10.96.0.0/16 is supported so far',
      ].join('; '),
    );
  });

  it('reads the local registry: owned ({}), shared (a name), on a port; reports bad fields', () => {
    const config = (registry: unknown) =>
      clusterConfigFrom({ apiVersion: 'tkube.dev/v1alpha1', kind: 'Cluster', registry }, 'c.yaml').registry;
    expect(config(undefined)).toBeUndefined();
    expect(config({})).toEqual({});
    expect(config({ name: 'kind-registry', port: 5002 })).toEqual({ name: 'kind-registry', port: 5002 });
    expect(() => config(true)).toThrow('registry: must be an object (e.g. {} for a registry on port 5001)');
    expect(() => config({ name: '-x', port: 0, host: 'a' })).toThrow(
      [
        'invalid cluster config c.yaml: registry.host: unknown field',
        'registry.name: must be a container name: letters, digits, "_", "." and "-"',
        'registry.port: must be a port number from 1 to 65535',
      ].join('; '),
    );
  });

  it("reads controllerManager's and metricsServer's extraArgs as milliseconds", () => {
    const flags = (extra: Record<string, unknown>) =>
      clusterConfigFrom({ apiVersion: 'tkube.dev/v1alpha1', kind: 'Cluster', ...extra }, 'c.yaml')
        .componentFlags;
    expect(flags({})).toBeUndefined();
    expect(flags({ controllerManager: {}, metricsServer: { extraArgs: {} } })).toBeUndefined();
    expect(
      flags({
        controllerManager: {
          extraArgs: {
            'horizontal-pod-autoscaler-sync-period': '1m30s',
            'horizontal-pod-autoscaler-downscale-stabilization': '0s',
            'node-monitor-grace-period': '20s',
          },
        },
        metricsServer: { extraArgs: { 'metric-resolution': '10s' } },
      }),
    ).toEqual({
      horizontalPodAutoscalerSyncPeriodMs: 90_000,
      horizontalPodAutoscalerDownscaleStabilizationMs: 0,
      nodeMonitorGracePeriodMs: 20_000,
      metricResolutionMs: 10_000,
    });
    expect(
      flags({ controllerManager: { extraArgs: { 'horizontal-pod-autoscaler-sync-period': '500ms' } } }),
    ).toEqual({ horizontalPodAutoscalerSyncPeriodMs: 500 });
  });

  it("refuses other flags, bad durations and values below each flag's minimum, naming the path", () => {
    const attempt = (extra: Record<string, unknown>) => () =>
      clusterConfigFrom({ apiVersion: 'tkube.dev/v1alpha1', kind: 'Cluster', ...extra }, 'c.yaml');
    expect(
      attempt({
        controllerManager: {
          extraArgs: {
            'node-monitor-period': '5s',
            'metric-resolution': '10s',
            'horizontal-pod-autoscaler-sync-period': '0s',
            'horizontal-pod-autoscaler-downscale-stabilization': '-1s',
            'node-monitor-grace-period': '0s',
          },
          extraVolumes: [],
        },
        metricsServer: { extraArgs: { 'metric-resolution': '5s', 'kubelet-insecure-tls': 'true' } },
      }),
    ).toThrow(
      [
        'invalid cluster config c.yaml: controllerManager.extraVolumes: unknown field',
        'controllerManager.extraArgs.node-monitor-period: not a supported flag; supported: horizontal-pod-autoscaler-sync-period, horizontal-pod-autoscaler-downscale-stabilization, node-monitor-grace-period',
        'controllerManager.extraArgs.metric-resolution: not a supported flag; supported: horizontal-pod-autoscaler-sync-period, horizontal-pod-autoscaler-downscale-stabilization, node-monitor-grace-period',
        'controllerManager.extraArgs.horizontal-pod-autoscaler-sync-period: must be more than 0s',
        'controllerManager.extraArgs.horizontal-pod-autoscaler-downscale-stabilization: must be at least 0s',
        'controllerManager.extraArgs.node-monitor-grace-period: must be more than 0s',
        "metricsServer.extraArgs.metric-resolution: must be at least 10s (metrics-server's minimum)",
        'metricsServer.extraArgs.kubelet-insecure-tls: not a supported flag; supported: metric-resolution',
      ].join('; '),
    );
    expect(
      attempt({ controllerManager: { extraArgs: { 'horizontal-pod-autoscaler-sync-period': '5' } } }),
    ).toThrow(
      'controllerManager.extraArgs.horizontal-pod-autoscaler-sync-period: must be a Go duration such as 5s, 1m30s or 500ms',
    );
    expect(attempt({ metricsServer: { extraArgs: { 'metric-resolution': 15 } } })).toThrow(
      'metricsServer.extraArgs.metric-resolution: must be a string, e.g. "15s"',
    );
    expect(attempt({ metricsServer: { extraArgs: ['metric-resolution=15s'] } })).toThrow(
      'metricsServer.extraArgs: must be a map of flag names to values',
    );
    expect(attempt({ controllerManager: 'fast' })).toThrow('controllerManager: must be an object');
  });

  it('publishes a schema with the same fields the validator accepts', () => {
    const schema = JSON.parse(readFileSync(join(repoRoot, 'docs/cluster-config.schema.json'), 'utf8'));
    expect(Object.keys(schema.properties).sort()).toEqual([
      'apiVersion',
      'controllerManager',
      'datastore',
      'kind',
      'metricsServer',
      'name',
      'networking',
      'nodes',
      'registry',
    ]);
    expect(Object.keys(schema.properties.registry.properties).sort()).toEqual(['name', 'port']);
    expect(Object.keys(schema.properties.networking.properties).sort()).toEqual([
      'apiServerPort',
      'podSubnet',
      'serviceSubnet',
    ]);
    expect(Object.keys(schema.properties.datastore.properties)).toEqual(['endpoint']);
    // The flags the schema lists are the ones the validator takes.
    for (const component of ['controllerManager', 'metricsServer'] as const) {
      expect(Object.keys(schema.properties[component].properties)).toEqual(['extraArgs']);
      expect(Object.keys(schema.properties[component].properties.extraArgs.properties)).toEqual(
        componentFlagNames(component),
      );
    }
    const node = schema.$defs.node.properties;
    expect(Object.keys(node).sort()).toEqual(['extraMounts', 'extraPortMappings', 'labels', 'role']);
    expect(Object.keys(node.extraPortMappings.items.properties).sort()).toEqual([
      'containerPort',
      'hostPort',
      'listenAddress',
      'protocol',
    ]);
    expect(Object.keys(node.extraMounts.items.properties).sort()).toEqual([
      'containerPath',
      'hostPath',
      'propagation',
      'readOnly',
    ]);
    // Each field the schema names is accepted by the validator.
    expect(() =>
      clusterConfigFrom(
        {
          apiVersion: 'tkube.dev/v1alpha1',
          kind: 'Cluster',
          name: 'x',
          nodes: [
            {
              role: 'worker',
              labels: {},
              extraPortMappings: [
                { containerPort: 1, hostPort: 0, listenAddress: '0.0.0.0', protocol: 'UDP' },
              ],
              extraMounts: [
                { hostPath: '/a', containerPath: '/b', readOnly: false, propagation: 'HostToContainer' },
              ],
            },
          ],
          networking: { podSubnet: '10.244.0.0/16', serviceSubnet: '10.96.0.0/16', apiServerPort: 1 },
          controllerManager: {
            extraArgs: {
              'horizontal-pod-autoscaler-sync-period': '15s',
              'horizontal-pod-autoscaler-downscale-stabilization': '5m0s',
              'node-monitor-grace-period': '50s',
            },
          },
          metricsServer: { extraArgs: { 'metric-resolution': '15s' } },
        },
        'full.yaml',
      ),
    ).not.toThrow();
  });
});
