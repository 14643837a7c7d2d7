// The node's interface as the speaker sees it through iproute2: which interface and network hold
// the node's address, the /32s an earlier agent left, and the commands that add and remove one.
import { describe, expect, it } from 'vitest';
import {
  addAddress,
  heldAddresses,
  onLink,
  readNodeLink,
  removeAddress,
} from '../../../../src/agent/loadbalancer/node-link.js';
import type { RunCommand } from '../../../../src/agent/network/host-commands.js';

const ADDRESSES = [
  '1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever',
  '2: tkube0    inet 10.244.255.1/24 brd 10.244.255.255 scope global tkube0\\       valid_lft forever preferred_lft forever',
  '297: eth0    inet 172.30.140.11/24 brd 172.30.140.255 scope global eth0\\       valid_lft forever preferred_lft forever',
  '297: eth0    inet 172.30.140.224/32 scope global eth0\\       valid_lft forever preferred_lft forever',
].join('\n');

function fakeRun(failWith?: string): { run: RunCommand; calls: string[] } {
  const calls: string[] = [];
  const run: RunCommand = async (file, args) => {
    calls.push([file, ...args].join(' '));
    if (failWith && args[0] === 'addr' && args[1] !== 'show') throw new Error(`${file} failed: ${failWith}`);
    return ADDRESSES;
  };
  return { run, calls };
}

describe('node link', () => {
  it('finds the interface and network of the node address, and a free address to ARP for', async () => {
    const { run } = fakeRun();
    const link = await readNodeLink(run, '172.30.140.11');
    expect(link.device).toBe('eth0');
    expect(link.unheld).toBe('172.30.140.9');
    expect(onLink(link, '172.30.140.230')).toBe(true);
    expect(onLink(link, '172.30.141.230')).toBe(false);
    await expect(readNodeLink(run, '172.30.140.99')).rejects.toThrow(
      'no interface holds the node address 172.30.140.99',
    );
  });

  it('lists the /32s on the interface', async () => {
    const { run } = fakeRun();
    const link = await readNodeLink(run, '172.30.140.11');
    expect(await heldAddresses(run, link)).toEqual(['172.30.140.224']);
  });

  it('adds and removes an address, an address already there or already gone being no error', async () => {
    const { run, calls } = fakeRun();
    const link = await readNodeLink(run, '172.30.140.11');
    await addAddress(run, link, '172.30.140.225');
    await removeAddress(run, link, '172.30.140.225');
    expect(calls.slice(-2)).toEqual([
      'ip addr add 172.30.140.225/32 dev eth0',
      'ip addr del 172.30.140.225/32 dev eth0',
    ]);
    await addAddress(fakeRun('RTNETLINK answers: File exists').run, link, '172.30.140.225');
    await removeAddress(
      fakeRun('RTNETLINK answers: Cannot assign requested address').run,
      link,
      '172.30.140.225',
    );
    await expect(
      addAddress(fakeRun('RTNETLINK answers: Operation not permitted').run, link, '172.30.140.225'),
    ).rejects.toThrow('Operation not permitted');
  });
});
