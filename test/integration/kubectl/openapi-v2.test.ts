// kubectl 1.28 reads /openapi/v2 as protobuf only (for apply, validation and explain with
// --output=plaintext-openapiv2) and gives up when the server cannot answer it.
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestCluster, type TestCluster } from '../../support/cluster.js';

let cluster: TestCluster;

/** kubectl.1.28, installed next to the kubectl on the PATH. */
function kubectl128(): string {
  const dir = (process.env.PATH ?? '').split(delimiter).find((d) => d && existsSync(join(d, 'kubectl')));
  if (!dir) throw new Error('kubectl is not on the PATH');
  return join(dirname(realpathSync(join(dir, 'kubectl'))), 'kubectl.1.28');
}

const binary = kubectl128();

beforeAll(async () => {
  cluster = await startTestCluster('oapi2');
}, 60_000);

afterAll(async () => {
  await cluster?.down();
});

function configMap(mode: string): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pb-settings\n  labels: {app: web}\ndata:\n  mode: ${mode}\n`;
}

describe('kubectl 1.28 with /openapi/v2 as protobuf', () => {
  it('applies a configmap, then updates it', async () => {
    const created = await cluster.kubectl(['apply', '-f', '-', '-v=6'], { binary, input: configMap('dev') });
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.stdout).toBe('configmap/pb-settings created');
    // The protobuf document was fetched, not skipped for lack of it.
    expect(created.stderr).toMatch(/GET https:\/\/\S+\/openapi\/v2\S* 200 OK/);

    const configured = await cluster.kubectl(['apply', '-f', '-'], { binary, input: configMap('prod') });
    expect(configured.exitCode, configured.stderr).toBe(0);
    expect(configured.stdout).toBe('configmap/pb-settings configured');
    const mode = await cluster.kubectl(['get', 'cm', 'pb-settings', '-o', 'jsonpath={.data.mode}'], {
      binary,
    });
    expect(mode.stdout).toBe('prod');
  });

  it('explains a field from the protobuf document', async () => {
    const result = await cluster.kubectl(['explain', 'pods.spec', '--output=plaintext-openapiv2'], {
      binary,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^KIND:\s+Pod$/m);
    expect(result.stdout).toMatch(/^RESOURCE: spec <Object>$/m);
    expect(result.stdout).toMatch(/^ {3}containers\t<\[\]Object> -required-$/m);
  });
});
