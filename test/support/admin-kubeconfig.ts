// A kubeconfig file for the cluster admin of a state directory's PKI, pointing at an in-process
// apiserver: for tests that drive the real kubectl against it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes `file` and returns its path; `namespace` becomes the context's default namespace. */
export function writeAdminKubeconfig(file: string, port: number, pkiDir: string, namespace?: string): string {
  const data = (name: string) => readFileSync(join(pkiDir, name)).toString('base64');
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 't',
          cluster: { server: `https://127.0.0.1:${port}`, 'certificate-authority-data': data('ca.crt') },
        },
      ],
      users: [
        {
          name: 't',
          user: { 'client-certificate-data': data('admin.crt'), 'client-key-data': data('admin.key') },
        },
      ],
      contexts: [{ name: 't', context: { cluster: 't', user: 't', ...(namespace ? { namespace } : {}) } }],
      'current-context': 't',
    }),
  );
  return file;
}
