// The query translations of the streaming hops: PodExecOptions and PodPortForwardOptions into
// the kubelet's parameters (the apiserver's streamParams), the kubelet's reading of them
// (remotecommand's NewOptions), and the running container an exec reaches.
import { describe, expect, it } from 'vitest';
import { runningContainerId, streamOptions } from '../../../src/agent/kubelet/server/streaming.js';
import type { Pod } from '../../../src/api/types/core-v1.generated.js';
import { kubeletExecQuery, kubeletPortForwardQuery } from '../../../src/apiserver/handlers/pod-connect.js';

describe('the apiserver towards the kubelet', () => {
  it('turns PodExecOptions into input/output/error/tty=1 and repeated commands', () => {
    const query = new URLSearchParams(
      'command=sh&command=-c&command=echo hi&stdin=true&stdout=1&stderr=false&tty=true',
    );
    expect(kubeletExecQuery(query).toString()).toBe(
      'command=sh&command=-c&command=echo+hi&input=1&output=1&tty=1',
    );
  });

  it('turns ports into one port parameter each', () => {
    expect(kubeletPortForwardQuery(new URLSearchParams('ports=80&ports=443')).toString()).toBe(
      'port=80&port=443',
    );
  });
});

describe('the kubelet', () => {
  it('reads the streams as remotecommand does: a TTY merges stderr into stdout', () => {
    expect(streamOptions(new URLSearchParams('input=1&output=1&error=1'))).toEqual({
      tty: false,
      stdin: true,
      stdout: true,
      stderr: true,
    });
    expect(streamOptions(new URLSearchParams('output=1&error=1&tty=1'))).toEqual({
      tty: true,
      stdin: false,
      stdout: true,
      stderr: false,
    });
    expect(streamOptions(new URLSearchParams('input=true'))).toMatchObject({ stdin: false });
  });

  it('finds only a running container, by its runtime id', () => {
    const pod: Pod = {
      metadata: { name: 'p', namespace: 'ns' },
      status: {
        initContainerStatuses: [
          {
            name: 'setup',
            image: 'b',
            imageID: '',
            ready: false,
            restartCount: 0,
            containerID: 'containerd://init1',
            state: { terminated: { exitCode: 0 } },
          },
        ],
        containerStatuses: [
          {
            name: 'main',
            image: 'b',
            imageID: '',
            ready: true,
            restartCount: 0,
            containerID: 'containerd://abc',
            state: { running: {} },
          },
        ],
      },
    };
    expect(runningContainerId(pod, 'main')).toBe('abc');
    expect(runningContainerId(pod, 'setup')).toBeUndefined();
    expect(runningContainerId(pod, 'nope')).toBeUndefined();
  });
});
