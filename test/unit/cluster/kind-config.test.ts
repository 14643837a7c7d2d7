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
        'kubeadmConfigPatches: not honoured: tkube runs no kubeadm',
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
