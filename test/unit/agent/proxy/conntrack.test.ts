import { describe, expect, it } from 'vitest';
import { staleConntrackCommands } from '../../../../src/agent/proxy/conntrack.js';
import { endpoint, NODE, service, slice, state } from './fixtures.js';

const dnsPorts = [{ name: 'dns', port: 53, protocol: 'UDP' }];
const dns = service('dns', {
  type: 'NodePort',
  clusterIP: '10.96.0.10',
  ports: [{ ...dnsPorts[0]!, nodePort: 30053 }],
});
const dnsSlice = (...ips: string[]) =>
  slice(
    'dns',
    dnsPorts,
    ips.map((ip) => endpoint(ip, NODE)),
  );

describe('staleConntrackCommands', () => {
  it('deletes the UDP flows of a removed endpoint, by cluster IP and node port', () => {
    const commands = staleConntrackCommands(
      state([dns], [dnsSlice('10.244.1.2', '10.244.1.3')]),
      state([dns], [dnsSlice('10.244.1.2')]),
    );
    expect(commands).toEqual([
      ['-D', '-p', 'udp', '--dport', '30053', '--dst-nat', '10.244.1.3'],
      ['-D', '--orig-dst', '10.96.0.10', '--dst-nat', '10.244.1.3', '-p', 'udp'],
    ]);
  });

  it('clears a UDP service that had no endpoint (its flows were rejected) once it has one', () => {
    expect(staleConntrackCommands(state([dns], []), state([dns], [dnsSlice('10.244.1.2')]))).toEqual([
      ['-D', '--orig-dst', '10.96.0.10', '-p', 'udp'],
      ['-D', '-p', 'udp', '--dport', '30053'],
    ]);
  });

  it('clears a deleted UDP service, and leaves TCP alone', () => {
    expect(staleConntrackCommands(state([dns], [dnsSlice('10.244.1.2')]), state([], []))).toEqual([
      ['-D', '--orig-dst', '10.96.0.10', '-p', 'udp'],
    ]);
    const tcp = service('web', { clusterIP: '10.96.0.20', ports: [{ port: 80 }] });
    const tcpSlice = (...ips: string[]) =>
      slice(
        'web',
        [{ port: 80, protocol: 'TCP' }],
        ips.map((ip) => endpoint(ip, NODE)),
      );
    expect(staleConntrackCommands(state([tcp], [tcpSlice('10.244.1.2')]), state([tcp], []))).toEqual([]);
  });
});
