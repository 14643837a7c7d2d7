import { describe, expect, it } from 'vitest';
import {
  type DnsSettings,
  parseResolvConf,
  podDnsConfig,
  podUsableHostDns,
} from '../../../src/agent/kubelet/config/dns.js';
import { kernelHostname, managedHostsFile, podHostname } from '../../../src/agent/kubelet/config/hostname.js';
import {
  containerResources,
  milliCpuToQuota,
  milliCpuToShares,
  oomScoreAdj,
  podCgroupParent,
} from '../../../src/agent/kubelet/config/resources.js';
import { podSandboxConfig } from '../../../src/agent/kubelet/config/sandbox-config.js';
import { containerSecurityContext, verifyRunAsNonRoot } from '../../../src/agent/kubelet/config/security.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { container, pod, UID } from './fixtures.js';

const settings: DnsSettings = {
  clusterDNS: ['10.96.0.10'],
  clusterDomain: 'cluster.local',
  host: { servers: ['192.168.1.1'], searches: ['corp.example'], options: ['edns0'] },
};

describe('pod DNS', () => {
  it('points ClusterFirst pods at the cluster DNS with the namespace search path and ndots:5', () => {
    const p = pod({}, { metadata: { name: 'web', namespace: 'shop', uid: UID } });
    expect(podDnsConfig(p, settings).config).toEqual({
      servers: ['10.96.0.10'],
      searches: ['shop.svc.cluster.local', 'svc.cluster.local', 'cluster.local', 'corp.example'],
      options: ['ndots:5'],
    });
  });

  it('gives Default pods, and ClusterFirst pods on the host network, the node resolver', () => {
    const host = { servers: ['192.168.1.1'], searches: ['corp.example'], options: ['edns0'] };
    expect(podDnsConfig(pod({ dnsPolicy: 'Default' }), settings).config).toEqual(host);
    expect(podDnsConfig(pod({ hostNetwork: true, dnsPolicy: 'ClusterFirst' }), settings).config).toEqual(
      host,
    );
    expect(
      podDnsConfig(pod({ hostNetwork: true, dnsPolicy: 'ClusterFirstWithHostNet' }), settings).config.servers,
    ).toEqual(['10.96.0.10']);
  });

  it('takes only dnsConfig with None, and merges dnsConfig otherwise (options override)', () => {
    const dnsConfig = {
      nameservers: ['1.1.1.1'],
      searches: ['extra.example'],
      options: [{ name: 'ndots', value: '2' }, { name: 'single-request' }],
    };
    expect(podDnsConfig(pod({ dnsPolicy: 'None', dnsConfig }), settings).config).toEqual({
      servers: ['1.1.1.1'],
      searches: ['extra.example'],
      options: ['ndots:2', 'single-request'],
    });
    const merged = podDnsConfig(pod({ dnsConfig }), settings).config;
    expect(merged.servers).toEqual(['10.96.0.10', '1.1.1.1']);
    expect(merged.searches?.at(-1)).toBe('extra.example');
    expect(merged.options).toEqual(['ndots:2', 'single-request']);
  });

  it('cuts nameservers and search paths to the resolver limits with a warning', () => {
    const dnsConfig = {
      nameservers: ['1.1.1.1', '8.8.8.8', '9.9.9.9'],
      searches: Array.from({ length: 40 }, (_, i) => `s${i}.example`),
    };
    const { config, warnings } = podDnsConfig(pod({ dnsConfig }), settings);
    expect(config.servers).toEqual(['10.96.0.10', '1.1.1.1', '8.8.8.8']);
    expect(config.searches).toHaveLength(32);
    expect(warnings[0]).toBe(
      'Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: 10.96.0.10 1.1.1.1 8.8.8.8',
    );
    expect(warnings[1]).toMatch(/^Search Line limits were exceeded, some search paths have been omitted/);
  });

  it("reads a resolv.conf, and replaces Docker's loopback resolver that pods cannot reach", () => {
    const conf = parseResolvConf(
      '# docker\nnameserver 127.0.0.11\nsearch corp.example. .\noptions ndots:0 edns0\n',
    );
    expect(conf).toEqual({
      servers: ['127.0.0.11'],
      searches: ['corp.example'],
      options: ['ndots:0', 'edns0'],
    });
    expect(podUsableHostDns(conf, ['10.96.0.10']).servers).toEqual(['10.96.0.10']);
    expect(podUsableHostDns({ ...conf, servers: ['192.168.1.1'] }, ['10.96.0.10']).servers).toEqual([
      '192.168.1.1',
    ]);
    const docker = { ...settings, host: conf };
    expect(podDnsConfig(pod({ dnsPolicy: 'Default' }), docker).config.servers).toEqual(['10.96.0.10']);
    // Host-network pods share the node's network namespace, where Docker's resolver answers.
    expect(podDnsConfig(pod({ hostNetwork: true }), docker).config.servers).toEqual(['127.0.0.11']);
  });
});

describe('pod resources', () => {
  const withQos = (qosClass: string): Pod => pod({}, { status: { qosClass } });

  it('puts pods in the cgroup of their QoS class', () => {
    expect(podCgroupParent(withQos('Guaranteed'))).toBe(`/kubepods/pod${UID}`);
    expect(podCgroupParent(withQos('Burstable'))).toBe(`/kubepods/burstable/pod${UID}`);
    expect(podCgroupParent(withQos('BestEffort'))).toBe(`/kubepods/besteffort/pod${UID}`);
  });

  it('converts CPU to shares and CFS quota as the kubelet does', () => {
    expect(milliCpuToShares(0)).toBe(2);
    expect(milliCpuToShares(1)).toBe(2);
    expect(milliCpuToShares(250)).toBe(256);
    expect(milliCpuToShares(1000)).toBe(1024);
    expect(milliCpuToQuota(0)).toBe(0);
    expect(milliCpuToQuota(5)).toBe(1000);
    expect(milliCpuToQuota(500)).toBe(50_000);
  });

  it('sets shares from the request (else the limit), quota and memory from the limits', () => {
    const limited = container('app', { resources: { limits: { cpu: '500m', memory: '64Mi' } } });
    expect(containerResources(withQos('Guaranteed'), limited, 8 * 1024 ** 3)).toEqual({
      cpuShares: 512,
      cpuPeriod: 100_000,
      cpuQuota: 50_000,
      memoryLimitInBytes: 64 * 1024 ** 2,
      oomScoreAdj: 0,
    });
    const requested = container('app', { resources: { requests: { cpu: '100m', memory: '1Gi' } } });
    expect(containerResources(withQos('Burstable'), requested, 4 * 1024 ** 3)).toEqual({
      cpuShares: 102,
      cpuPeriod: 100_000,
      cpuQuota: 0,
      oomScoreAdj: 750,
    });
  });

  it('scores OOM by QoS: best-effort first, never negative in a node container', () => {
    const app = container('app');
    expect(oomScoreAdj(withQos('BestEffort'), app, 1000)).toBe(1000);
    expect(oomScoreAdj(withQos('Guaranteed'), app, 1000)).toBe(0);
    expect(oomScoreAdj(withQos('Burstable'), app, 1000)).toBe(999);
    const big = container('app', { resources: { requests: { memory: '1000' } } });
    expect(oomScoreAdj(withQos('Burstable'), big, 1000)).toBe(3);
  });
});

describe('sandbox config', () => {
  it('carries metadata, hostname, logs, labels, host ports, cgroup and namespaces', () => {
    const p = pod(
      {
        containers: [
          container('app', {
            ports: [
              { containerPort: 80, hostPort: 8080 },
              { containerPort: 53, protocol: 'UDP' },
            ],
          }),
        ],
        securityContext: { sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '0' }] },
      },
      {
        metadata: {
          name: 'web',
          namespace: 'shop',
          uid: UID,
          labels: { app: 'web' },
          annotations: { note: 'x' },
        },
      },
    );
    const { config } = podSandboxConfig(p, 2, settings);
    expect(config.metadata).toEqual({ name: 'web', uid: UID, namespace: 'shop', attempt: 2 });
    expect(config.hostname).toBe('web');
    expect(config.logDirectory).toBe(`/var/log/pods/shop_web_${UID}`);
    expect(config.labels).toEqual({
      app: 'web',
      'io.kubernetes.pod.name': 'web',
      'io.kubernetes.pod.namespace': 'shop',
      'io.kubernetes.pod.uid': UID,
    });
    expect(config.annotations).toEqual({ note: 'x' });
    expect(config.portMappings).toEqual([
      { protocol: 'TCP', containerPort: 80, hostPort: 8080, hostIp: '' },
      { protocol: 'UDP', containerPort: 53, hostPort: 0, hostIp: '' },
    ]);
    expect(config.linux?.cgroupParent).toBe(`/kubepods/besteffort/pod${UID}`);
    expect(config.linux?.sysctls).toEqual({ 'net.ipv4.ip_unprivileged_port_start': '0' });
    expect(config.linux?.securityContext?.namespaceOptions).toEqual({
      network: 'POD',
      pid: 'CONTAINER',
      ipc: 'POD',
    });
  });

  it('leaves the hostname empty on the host network', () => {
    const { config } = podSandboxConfig(pod({ hostNetwork: true, hostPID: true }), 0, settings);
    expect(config.hostname).toBe('');
    expect(config.linux?.securityContext?.namespaceOptions).toEqual({
      network: 'NODE',
      pid: 'NODE',
      ipc: 'POD',
    });
  });
});

describe('security context', () => {
  it('refuses root under runAsNonRoot with the kubelet message', () => {
    const p = pod({ securityContext: { runAsNonRoot: true } });
    const app = p.spec!.containers[0]!;
    expect(verifyRunAsNonRoot(p, app, {})).toBe(
      `container has runAsNonRoot and image will run as root (pod: "web_default(${UID})", container: app)`,
    );
    expect(verifyRunAsNonRoot(p, app, { uid: 0 })).toMatch(
      /^container has runAsNonRoot and image will run as root/,
    );
    expect(verifyRunAsNonRoot(p, app, { uid: 1000 })).toBeUndefined();
    expect(verifyRunAsNonRoot(p, app, { username: 'app' })).toMatch(/image has non-numeric user \(app\)/);
    const explicit = pod({ securityContext: { runAsNonRoot: true, runAsUser: 0 } });
    expect(verifyRunAsNonRoot(explicit, app, { uid: 1000 })).toMatch(
      /^container's runAsUser breaks non-root policy/,
    );
  });

  it('merges pod and container settings into the runtime security context', () => {
    const p = pod({
      securityContext: { runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000, supplementalGroups: [4000] },
    });
    const app = container('app', {
      securityContext: {
        runAsUser: 1001,
        privileged: false,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] },
      },
    });
    const sc = containerSecurityContext(p, app, { uid: 0 });
    expect(sc).toMatchObject({
      runAsUser: { value: 1001 },
      runAsGroup: { value: 3000 },
      supplementalGroups: [2000, 4000],
      readonlyRootfs: true,
      noNewPrivs: true,
      privileged: false,
      capabilities: { addCapabilities: ['NET_ADMIN'], dropCapabilities: ['ALL'] },
      seccomp: { profileType: 'Unconfined' },
    });
    expect(sc.maskedPaths).toContain('/proc/kcore');
    expect(containerSecurityContext(pod(), container('app'), { uid: 65534 }).runAsUser).toEqual({
      value: 65534,
    });
  });
});

describe('hostname and /etc/hosts', () => {
  it('uses hostname and subdomain, truncates long names, and writes the managed hosts file', () => {
    const p = pod({ hostname: 'db-0', subdomain: 'db', setHostnameAsFQDN: true });
    const name = podHostname(p, 'cluster.local');
    expect(name).toEqual({ hostname: 'db-0', domain: 'db.default.svc.cluster.local' });
    expect(kernelHostname(p, name)).toBe('db-0.db.default.svc.cluster.local');
    const long = pod({}, { metadata: { name: `${'a'.repeat(62)}-b`, namespace: 'default', uid: UID } });
    expect(podHostname(long, 'cluster.local').hostname).toBe('a'.repeat(62));
    const hosts = managedHostsFile(['10.244.1.5'], name, [{ ip: '1.2.3.4', hostnames: ['x', 'y'] }]);
    expect(hosts).toBe(
      '# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' +
        'fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n' +
        '10.244.1.5\tdb-0.db.default.svc.cluster.local\tdb-0\n\n# Entries added by HostAliases.\n1.2.3.4\tx\ty\n',
    );
  });
});
