// Security and protocol edges of issue 21 (items 4 and 5) over real HTTPS against an in-process
// control plane: connect subresources that never serve the Pod, and upstream's answers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningControlPlane, startControlPlane } from '../../../src/controlplane/control-plane.js';
import { ensureClusterPki } from '../../../src/pki/cluster-pki.js';
import { type Call, type CallResponse, httpsCaller } from '../../support/https-call.js';

let controlPlane: RunningControlPlane;
let call: Call;
const stateDir = mkdtempSync(join(tmpdir(), 'tkube-sec-edges-'));

beforeAll(async () => {
  const pki = await ensureClusterPki(join(stateDir, 'pki'));
  controlPlane = await startControlPlane({ stateDir, apiPort: 0 });
  call = httpsCaller(() => controlPlane.port, pki);
}, 30_000);

afterAll(async () => {
  await controlPlane?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

const PODS = '/api/v1/namespaces/default/pods';

function expectStatus(response: CallResponse, code: number, reason: string, message?: string): void {
  expect(response.status, response.text.slice(0, 500)).toBe(code);
  const status = response.json();
  expect(status).toMatchObject({ kind: 'Status', code, reason });
  if (message !== undefined) expect(status.message).toBe(message);
}

describe('security edges', () => {
  it('never serves the Pod from exec, attach or portforward without an upgrade', async () => {
    const secret = 'do-not-leak-0123456789';
    const created = await call('POST', PODS, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'connect' },
      spec: { containers: [{ name: 'c', image: 'busybox', env: [{ name: 'TOKEN', value: secret }] }] },
    });
    expect(created.status, created.text).toBe(201);
    const queries = ['', '?command=ls&stdout=true', '?container=c&stdin=true&tty=true', '?ports=80'];
    for (const sub of ['exec', 'attach', 'portforward']) {
      for (const method of ['GET', 'POST']) {
        for (const query of queries) {
          const response = await call(method, `${PODS}/connect/${sub}${query}`);
          expect(response.text).not.toContain(secret);
          expectStatus(response, 400, 'BadRequest', 'Upgrade request required');
        }
      }
      expectStatus(await call('GET', `${PODS}/absent/${sub}`), 404, 'NotFound', 'pods "absent" not found');
      const put = await call('PUT', `${PODS}/connect/${sub}`, {});
      expect(put.text).not.toContain(secret);
      expect(put.status).toBe(405);
    }
  });

  it('parses resourceVersions as uint64 with strconv.ParseUint text, on list, get-list and watch', async () => {
    const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
    const bad: Array<[string, string]> = [
      ['abc', 'invalid syntax'],
      ['-1', 'invalid syntax'],
      ['+1', 'invalid syntax'],
      ['1.5', 'invalid syntax'],
      ['1e3', 'invalid syntax'],
      ['0x10', 'invalid syntax'],
      ['1_000', 'invalid syntax'],
      [' 1', 'invalid syntax'],
      ['18446744073709551616', 'value out of range'],
      ['99999999999999999999999', 'value out of range'],
    ];
    for (const [value, why] of bad) {
      const message = `invalid resource version: resourceVersion: Invalid value: "${value}": strconv.ParseUint: parsing "${value}": ${why}`;
      const rv = encodeURIComponent(value);
      expectStatus(await call('GET', `${CONFIGMAPS}?resourceVersion=${rv}`), 400, 'BadRequest', message);
      expectStatus(
        await call('GET', `${CONFIGMAPS}?resourceVersion=${rv}&resourceVersionMatch=NotOlderThan`),
        400,
        'BadRequest',
        message,
      );
      expectStatus(
        await call('GET', `${CONFIGMAPS}?watch=true&resourceVersion=${rv}`),
        400,
        'BadRequest',
        message,
      );
    }
    // The largest uint64 parses: it is only in the future (and 2^53 + 1 is not rounded to 2^53).
    for (const value of ['18446744073709551615', '9007199254740993']) {
      const response = await call('GET', `${CONFIGMAPS}?resourceVersion=${value}`);
      expectStatus(response, 504, 'Timeout');
      expect(response.json().message).toMatch(
        new RegExp(`^Too large resource version: ${value}, current: \\d+$`),
      );
    }
    // Leading zeros are digits too, as ParseUint reads them.
    const list = await call('GET', `${CONFIGMAPS}?resourceVersion=0001`);
    expect(list.status, list.text).toBe(200);
    // resourceVersionMatch without a resourceVersion is refused before the value is parsed.
    expectStatus(await call('GET', `${CONFIGMAPS}?resourceVersionMatch=Exact`), 422, 'Invalid');
  });
});
