import { afterEach, describe, expect, it } from 'vitest';
import {
  goTimeString,
  healthzBody,
  startProxierHealthServer,
} from '../../../../src/agent/proxy/proxier-health.js';

describe("kube-proxy's /healthz", () => {
  it("writes times as Go's time.Time String()", () => {
    expect(goTimeString(undefined)).toBe('0001-01-01 00:00:00 +0000 UTC');
    expect(goTimeString(Date.UTC(2026, 10, 27, 23, 52, 46, 120))).toMatch(
      /^2026-11-27 23:52:46\.12 \+0000 UTC m=\+-?\d+\.\d{9}$/,
    );
    expect(goTimeString(Date.UTC(2026, 10, 27, 23, 52, 46, 0))).toMatch(/^2026-11-27 23:52:46 \+0000 UTC m=/);
  });

  it('is 200 while healthy and eligible, 503 when a change is late or the node is going away', () => {
    const now = Date.UTC(2026, 10, 27, 23, 52, 46);
    const ok = healthzBody(
      { healthy: () => true, lastUpdated: () => now - 5000, nodeEligible: () => true },
      now,
    );
    expect(ok.status).toBe(200);
    const parsed = JSON.parse(ok.body) as { lastUpdated: string; currentTime: string; nodeEligible: boolean };
    expect(parsed.lastUpdated).toBe(parsed.currentTime);
    expect(parsed.nodeEligible).toBe(true);
    const late = healthzBody(
      { healthy: () => false, lastUpdated: () => undefined, nodeEligible: () => true },
      now,
    );
    expect(late.status).toBe(503);
    expect(JSON.parse(late.body)).toMatchObject({ lastUpdated: '0001-01-01 00:00:00 +0000 UTC' });
    const leaving = healthzBody(
      { healthy: () => true, lastUpdated: () => now, nodeEligible: () => false },
      now,
    );
    expect(leaving.status).toBe(503);
    expect(leaving.body).toContain('"nodeEligible": false');
  });

  describe('server', () => {
    let close: (() => void) | undefined;
    afterEach(() => close?.());

    it('answers /healthz and 404 elsewhere', async () => {
      const server = startProxierHealthServer(
        { healthy: () => true, lastUpdated: () => Date.now(), nodeEligible: () => true },
        { address: '127.0.0.1', port: 0 },
      );
      close = () => server.close();
      await new Promise((resolve) => server.once('listening', resolve));
      const { port } = server.address() as { port: number };
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.text()).toMatch(
        /^\{"lastUpdated": "[^"]+","currentTime": "[^"]+", "nodeEligible": true\}$/,
      );
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    });
  });
});
