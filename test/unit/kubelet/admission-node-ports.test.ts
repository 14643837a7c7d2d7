import { describe, expect, it } from 'vitest';
import { checkNodePorts, NODE_PORTS_REJECTION } from '../../../src/agent/kubelet/admission/node-ports.js';
import type { ContainerPort, Pod } from '../../../src/api/types/core-v1.generated.js';

const pod = (ports: ContainerPort[], sidecarPorts: ContainerPort[] = []): Pod => ({
  metadata: { name: 'p', namespace: 'default' },
  spec: {
    initContainers: sidecarPorts.length ? [{ name: 's', restartPolicy: 'Always', ports: sidecarPorts }] : [],
    containers: [{ name: 'c', ports }],
  },
});

describe('kubelet admission: NodePorts', () => {
  it('admits pods without host ports, or whose host ports are free', () => {
    const running = [pod([{ containerPort: 80, hostPort: 8080 }])];
    expect(checkNodePorts(pod([{ containerPort: 80 }]), running)).toBeUndefined();
    expect(checkNodePorts(pod([{ containerPort: 80, hostPort: 8081 }]), running)).toBeUndefined();
    expect(
      checkNodePorts(pod([{ containerPort: 80, hostPort: 8080, protocol: 'UDP' }]), running),
    ).toBeUndefined();
    // Different specific addresses do not conflict.
    const onOne = [pod([{ containerPort: 80, hostPort: 9000, hostIP: '10.0.0.1' }])];
    expect(
      checkNodePorts(pod([{ containerPort: 80, hostPort: 9000, hostIP: '10.0.0.2' }]), onOne),
    ).toBeUndefined();
  });

  it('rejects a host port taken on the same address, on 0.0.0.0, or by a sidecar', () => {
    const running = [pod([{ containerPort: 21017, hostPort: 21017 }])];
    expect(checkNodePorts(pod([{ containerPort: 21017, hostPort: 21017 }]), running)).toBe(
      NODE_PORTS_REJECTION,
    );
    expect(
      checkNodePorts(
        pod([{ containerPort: 1, hostPort: 21017, hostIP: '10.0.0.1', protocol: 'TCP' }]),
        running,
      ),
    ).toBe(NODE_PORTS_REJECTION);
    const onOne = [pod([{ containerPort: 80, hostPort: 9000, hostIP: '10.0.0.1' }])];
    expect(checkNodePorts(pod([{ containerPort: 80, hostPort: 9000 }]), onOne)).toBe(NODE_PORTS_REJECTION);
    const sidecar = [pod([], [{ containerPort: 53, hostPort: 5353, protocol: 'UDP' }])];
    expect(checkNodePorts(pod([{ containerPort: 53, hostPort: 5353, protocol: 'UDP' }]), sidecar)).toEqual({
      reason: 'NodePorts',
      message: 'Predicate NodePorts failed',
    });
  });
});
