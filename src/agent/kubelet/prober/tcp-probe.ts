// tcpSocket probes: success when a TCP connection opens within the timeout.
import { connect } from 'node:net';
import { dialErrorText } from '../../../api/go-net-errors.js';
import type { ProbeOutcome } from './outcome.js';

export function runTcpProbe(host: string, port: number, timeoutMs: number): Promise<ProbeOutcome> {
  const address = `${host}:${port}`;
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (outcome: ProbeOutcome) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(
      () => done({ result: 'failure', output: `dial tcp ${address}: i/o timeout` }),
      timeoutMs,
    );
    socket.once('connect', () => done({ result: 'success', output: '' }));
    socket.once('error', (error) => done({ result: 'failure', output: dialErrorText(address, error) }));
  });
}
