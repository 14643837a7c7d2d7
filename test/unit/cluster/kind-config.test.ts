// A kind `Cluster` (kind.x-k8s.io/v1alpha4) is read as it is: every field kind documents is
// either carried over to tkube's config or named in one warning line; unknown fields and bad
// values are errors with their paths, as for tkube's own format.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { clusterConfigFrom } from '../../../src/cluster/config/cluster-config.js';

const KIND_FULL = `
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
name: app
featureGates: {InPlacePodVerticalScaling: true}
runtimeConfig: {"api/alpha": "false"}
kubeadmConfigPatches: ["kind: ClusterConfiguration"]
kubeadmConfigPatchesJSON6902: []
containerdConfigPatches: ["[plugins]"]
containerdConfigPatchesJSON6902: []
networking:
  ipFamily: ipv4
  apiServerAddress: 127.0.0.1
  apiServerPort: 6443
  podSubnet: 10.240.0.0/16
  serviceSubnet: 10.96.0.0/16
  disableDefaultCNI: false
  kubeProxyMode: iptables
nodes:
  - role: control-plane
    image: kindest/node:v1.33.1
    labels: {ingress-ready: "true"}
    kubeadmConfigPatches: ["kind: InitConfiguration"]
    kubeadmConfigPatchesJSON6902: []
    extraPortMappings:
      - {containerPort: 80, hostPort: 8080, listenAddress: 127.0.0.1, protocol: TCP}
  - role: worker
    extraMounts:
      - {hostPath: /tmp/data, containerPath: /data, readOnly: true, selinuxRelabel: false, propagation: HostToContainer}
`;

describe('kind cluster config', () => {
  it('carries over what tkube honours and warns once per field it does not', () => {
    const config = clusterConfigFrom(parse(KIND_FULL), 'kind.yaml');
    expect(config).toEqual({
      name: 'app',
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
          extraMounts: [
            { hostPath: '/tmp/data', containerPath: '/data', readOnly: true, propagation: 'HostToContainer' },
          ],
        },
      ],
      networking: { podSubnet: '10.240.0.0/16', serviceSubnet: '10.96.0.0/16', apiServerPort: 6443 },
      warnings: [
        'featureGates: not honoured: tkube serves Kubernetes 1.33 with its default feature gates',
        'runtimeConfig: not honoured: tkube serves its built-in API versions',
        'kubeadmConfigPatchesJSON6902: not honoured: tkube runs no kubeadm',
        "containerdConfigPatches: not honoured: tkube's nodes use their own containerd config",
        "containerdConfigPatchesJSON6902: not honoured: tkube's nodes use their own containerd config",
        "nodes[0].image: not honoured: tkube's nodes run its own node image (see --image)",
        'nodes[0].kubeadmConfigPatches: not honoured: tkube runs no kubeadm',
        'nodes[0].kubeadmConfigPatchesJSON6902: not honoured: tkube runs no kubeadm',
        'nodes[1].extraMounts[0].selinuxRelabel: not honoured: mounts are not relabelled for SELinux',
      ],
    });
  });

  it('accepts the values tkube has anyway without a warning, and warns for the others', () => {
    const config = clusterConfigFrom(
      {
        kind: 'Cluster',
        apiVersion: 'kind.x-k8s.io/v1alpha4',
        networking: {
          ipFamily: 'dual',
          apiServerAddress: '0.0.0.0',
          kubeProxyMode: 'nftables',
          disableDefaultCNI: true,
          dnsSearch: ['corp.example'],
        },
        nodes: [{ role: 'control-plane' }, { role: 'control-plane' }, { role: 'worker' }],
      },
      'kind.yaml',
    );
    expect(config.nodes.map((node) => node.role)).toEqual(['control-plane', 'worker', 'worker']);
    expect(config.warnings).toEqual([
      'networking.ipFamily: not honoured: tkube clusters are IPv4 only',
      'networking.apiServerAddress: not honoured: the API server listens on 127.0.0.1',
      "networking.kubeProxyMode: not honoured: tkube's kube-proxy runs in iptables mode",
      "networking.disableDefaultCNI: not honoured: tkube's pod network is built in and cannot be replaced",
      "networking.dnsSearch: not honoured: nodes keep Docker's DNS settings",
      'nodes[1].role: not honoured: tkube runs one control plane; this node joins as a worker',
    ]);
  });

  it('has no warnings for a minimal kind config (one control-plane node)', () => {
    const config = clusterConfigFrom({ kind: 'Cluster', apiVersion: 'kind.x-k8s.io/v1alpha4' }, 'kind.yaml');
    expect(config.warnings).toBeUndefined();
    expect(config.nodes).toEqual([
      { role: 'control-plane', labels: {}, extraPortMappings: [], extraMounts: [] },
    ]);
  });

  it("carries over a ClusterConfiguration patch's controller-manager flags in kubeadm v1beta3's map form", () => {
    const config = clusterConfigFrom(
      parse(`
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
kubeadmConfigPatches:
  - |
    kind: ClusterConfiguration
    apiVersion: kubeadm.k8s.io/v1beta3
    controllerManager:
      extraArgs:
        horizontal-pod-autoscaler-sync-period: 5s
        horizontal-pod-autoscaler-downscale-stabilization: 30s
        node-monitor-grace-period: 20s
`),
      'kind.yaml',
    );
    expect(config.componentFlags).toEqual({
      horizontalPodAutoscalerSyncPeriodMs: 5000,
      horizontalPodAutoscalerDownscaleStabilizationMs: 30_000,
      nodeMonitorGracePeriodMs: 20_000,
    });
    expect(config.warnings).toBeUndefined();
  });

  it("carries over v1beta4's list form, later values winning, and warns for every other part", () => {
    const config = clusterConfigFrom(
      parse(`
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
kubeadmConfigPatches:
  - |
    kind: ClusterConfiguration
    apiVersion: kubeadm.k8s.io/v1beta4
    apiServer:
      extraArgs:
        - {name: enable-admission-plugins, value: NodeRestriction}
    controllerManager:
      extraArgs:
        - {name: horizontal-pod-autoscaler-sync-period, value: 10s}
        - {name: node-monitor-period, value: 2s}
        - {name: node-monitor-grace-period, value: 25s}
        - {name: horizontal-pod-autoscaler-sync-period, value: 3s}
      extraVolumes: []
  - |
    kind: KubeletConfiguration
    maxPods: 200
    ---
    kind: InitConfiguration
    nodeRegistration: {}
  - "# nothing but a comment"
nodes:
  - role: control-plane
    kubeadmConfigPatches:
      - |
        kind: ClusterConfiguration
        controllerManager:
          extraArgs:
            horizontal-pod-autoscaler-sync-period: 1s
`),
      'kind.yaml',
    );
    expect(config.componentFlags).toEqual({
      horizontalPodAutoscalerSyncPeriodMs: 3000,
      nodeMonitorGracePeriodMs: 25_000,
    });
    expect(config.warnings).toEqual([
      'kubeadmConfigPatches[0].apiServer: not honoured: tkube runs no kubeadm',
      "kubeadmConfigPatches[0].controllerManager.extraArgs.node-monitor-period: not honoured: tkube's controller manager takes only horizontal-pod-autoscaler-sync-period, horizontal-pod-autoscaler-downscale-stabilization, node-monitor-grace-period",
      'kubeadmConfigPatches[0].controllerManager.extraVolumes: not honoured: tkube runs no kubeadm',
      'kubeadmConfigPatches[1][0]: not honoured: tkube runs no kubeadm and has no KubeletConfiguration',
      'kubeadmConfigPatches[1][1]: not honoured: tkube runs no kubeadm and has no InitConfiguration',
      'nodes[0].kubeadmConfigPatches: not honoured: tkube runs no kubeadm',
    ]);
  });

  it("reports a patch's bad values at kind's paths, and tkube's own sections as unknown", () => {
    const attempt = () =>
      clusterConfigFrom(
        {
          kind: 'Cluster',
          apiVersion: 'kind.x-k8s.io/v1alpha4',
          metricsServer: { extraArgs: { 'metric-resolution': '10s' } },
          kubeadmConfigPatches: [
            'kind: ClusterConfiguration\ncontrollerManager:\n  extraArgs:\n    horizontal-pod-autoscaler-sync-period: 0s\n',
            'kind: ClusterConfiguration\ncontrollerManager:\n  extraArgs: [{value: 5s}]\n',
            'kind: [',
            { kind: 'ClusterConfiguration' },
          ],
        },
        'kind.yaml',
      );
    expect(attempt).toThrow(
      [
        'invalid cluster config kind.yaml: metricsServer: unknown field',
        'kubeadmConfigPatches[0].controllerManager.extraArgs.horizontal-pod-autoscaler-sync-period: must be more than 0s',
        'kubeadmConfigPatches[1].controllerManager.extraArgs[0]: must be {name, value}',
        'kubeadmConfigPatches[2]: not YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 1, column 8',
        'kubeadmConfigPatches[3]: must be a YAML string',
      ].join('; '),
    );
  });

  it('reports unknown fields and bad values with their paths', () => {
    expect(() =>
      clusterConfigFrom(
        {
          kind: 'Cluster',
          apiVersion: 'kind.x-k8s.io/v1alpha4',
          nodez: [],
          nodes: [{ role: 'worker', extraPortMappings: [{ containerPort: 99999 }], colour: 'red' }],
          networking: { podSubnet: 'x', proxyMode: 'ipvs' },
        },
        'kind.yaml',
      ),
    ).toThrow(
      [
        'invalid cluster config kind.yaml: nodez: unknown field',
        'nodes[0].colour: unknown field',
        'nodes[0].extraPortMappings[0].containerPort: must be a port number from 1 to 65535',
        'networking.proxyMode: unknown field',
        'networking.podSubnet: must be an IPv4 CIDR with its host bits zero, e.g. 10.244.0.0/16',
      ].join('; '),
    );
  });
});
