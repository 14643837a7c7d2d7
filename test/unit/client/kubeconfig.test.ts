import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readKubeconfig } from '../../../src/client/transports.js';
import { tempDir } from '../../support/temp.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');

const KUBECONFIG = `apiVersion: v1
kind: Config
current-context: tkube-dev
clusters:
- name: tkube-dev
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority-data: ${b64('CA PEM')}
- name: remote
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority: pki/ca.crt
    tls-server-name: kubernetes
- name: lab
  cluster:
    server: https://lab:6443
    insecure-skip-tls-verify: true
contexts:
- name: tkube-dev
  context: { cluster: tkube-dev, user: admin }
- name: files
  context: { cluster: remote, user: from-files }
- name: lab
  context: { cluster: lab, user: robot }
- name: broken
  context: { cluster: nowhere, user: admin }
users:
- name: admin
  user:
    client-certificate-data: ${b64('CERT PEM')}
    client-key-data: ${b64('KEY PEM')}
- name: from-files
  user:
    client-certificate: pki/admin.crt
    client-key: pki/admin.key
- name: robot
  user:
    tokenFile: token
`;

describe('readKubeconfig', () => {
  const dir = () => {
    const root = tempDir('tkube-kubeconfig-');
    mkdirSync(join(root, 'pki'));
    writeFileSync(join(root, 'pki/ca.crt'), 'CA FILE');
    writeFileSync(join(root, 'pki/admin.crt'), 'CERT FILE');
    writeFileSync(join(root, 'pki/admin.key'), 'KEY FILE');
    writeFileSync(join(root, 'token'), 'abc.def\n');
    writeFileSync(join(root, 'config'), KUBECONFIG);
    return join(root, 'config');
  };

  it('reads the current context with inline data', () => {
    expect(readKubeconfig(dir())).toEqual({
      server: 'https://127.0.0.1:6443',
      ca: 'CA PEM',
      insecureSkipTlsVerify: false,
      tlsServerName: undefined,
      cert: 'CERT PEM',
      key: 'KEY PEM',
      token: undefined,
    });
  });

  it('reads files relative to the kubeconfig, tokens and insecure clusters', () => {
    const path = dir();
    expect(readKubeconfig(path, 'files')).toMatchObject({
      server: 'https://10.0.0.1:6443',
      ca: 'CA FILE',
      cert: 'CERT FILE',
      key: 'KEY FILE',
      tlsServerName: 'kubernetes',
    });
    expect(readKubeconfig(path, 'lab')).toMatchObject({
      server: 'https://lab:6443',
      insecureSkipTlsVerify: true,
      token: 'abc.def',
    });
  });

  it('names what is missing', () => {
    const path = dir();
    expect(() => readKubeconfig(path, 'nope')).toThrow(`${path}: context "nope" not found`);
    expect(() => readKubeconfig(path, 'broken')).toThrow(`${path}: cluster "nowhere" not found`);
  });
});
