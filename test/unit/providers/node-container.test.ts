import { describe, expect, it } from 'vitest';
import { nodeContainerOptions, nodeHostConfig } from '../../../src/providers/docker/node-container.js';

describe('node container options', () => {
  it('uses the capability set where --privileged cannot work', () => {
    const config = nodeHostConfig({ privileged: false, capDrop: ['SYS_RESOURCE'] });
    expect(config).toMatchObject({
      CapAdd: ['ALL'],
      CapDrop: ['SYS_RESOURCE'],
      DeviceCgroupRules: ['a *:* rwm'],
      SecurityOpt: expect.arrayContaining(['seccomp=unconfined', 'apparmor=unconfined']),
      MaskedPaths: [],
      ReadonlyPaths: [],
      CgroupnsMode: 'private',
      Init: true,
    });
    expect(config.Privileged).toBeUndefined();
    expect(Object.keys(config.Tmpfs ?? {})).toEqual(['/run', '/tmp']);
    // Docker's tmpfs default is noexec; containerd runs shims and CNI state from /run.
    expect(config.Tmpfs?.['/run']).toContain('exec');
    expect(config.Tmpfs?.['/run']).not.toContain('noexec');
  });

  it('is privileged where the host allows it', () => {
    const config = nodeHostConfig({ privileged: true });
    expect(config.Privileged).toBe(true);
    expect(config.CapAdd).toBeUndefined();
  });

  it('names, labels, addresses and mounts a node', () => {
    const options = nodeContainerOptions(
      {
        cluster: 'dev',
        index: 1,
        role: 'worker',
        image: 'tkube.local/node:abc',
        ip: '172.30.0.11',
        env: { A: '1' },
        labels: { extra: 'x', 'dev.tkube.cluster': 'ignored' },
        portMappings: [
          { containerPort: 80, hostPort: 8080 },
          { containerPort: 80, hostPort: 8081, listenAddress: '127.0.0.1' },
          { containerPort: 53, protocol: 'UDP' },
        ],
        mounts: [
          { hostPath: '/src', containerPath: '/mnt/src', readOnly: true },
          { hostPath: '/data', containerPath: '/data', propagation: 'Bidirectional' },
        ],
      },
      'tkube-dev',
      { privileged: false, capDrop: ['SYS_RESOURCE'] },
    );
    expect(options).toMatchObject({
      name: 'dev-node-1',
      Hostname: 'dev-node-1',
      Image: 'tkube.local/node:abc',
      Env: ['A=1'],
      Labels: {
        extra: 'x',
        'dev.tkube.cluster': 'dev',
        'dev.tkube.role': 'worker',
        'dev.tkube.node-index': '1',
      },
      ExposedPorts: { '80/tcp': {}, '53/udp': {} },
      NetworkingConfig: {
        EndpointsConfig: {
          'tkube-dev': { IPAMConfig: { IPv4Address: '172.30.0.11' }, Aliases: ['dev-node-1'] },
        },
      },
    });
    expect(options.HostConfig?.NetworkMode).toBe('tkube-dev');
    expect(options.HostConfig?.PortBindings).toEqual({
      '80/tcp': [
        { HostIp: '', HostPort: '8080' },
        { HostIp: '127.0.0.1', HostPort: '8081' },
      ],
      '53/udp': [{ HostIp: '', HostPort: '' }],
    });
    expect(options.HostConfig?.Mounts).toEqual([
      expect.objectContaining({
        Type: 'volume',
        Source: 'dev-node-1-containerd',
        Target: '/var/lib/containerd',
        VolumeOptions: expect.objectContaining({ Labels: { 'dev.tkube.cluster': 'dev' } }),
      }),
      // Local-path claims' data: a labelled volume, so `tkube down` removes it with the cluster.
      expect.objectContaining({
        Type: 'volume',
        Source: 'dev-node-1-local-path',
        Target: '/var/lib/tkube/local-path',
        VolumeOptions: expect.objectContaining({ Labels: { 'dev.tkube.cluster': 'dev' } }),
      }),
      {
        Type: 'bind',
        Source: '/src',
        Target: '/mnt/src',
        ReadOnly: true,
        BindOptions: { Propagation: 'rprivate' },
      },
      {
        Type: 'bind',
        Source: '/data',
        Target: '/data',
        ReadOnly: false,
        BindOptions: { Propagation: 'rshared' },
      },
    ]);
  });
});
