// `--datastore-endpoint` parsing (issue 30): the engines tkube has, etcd's member list and TLS
// files, and a one-line refusal of anything else.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { parseDatastoreEndpoint, StoreOpenError } from '../../../src/storage/index.js';

describe('datastore endpoint', () => {
  it('reads an etcd member list as plain-HTTP client URLs', () => {
    expect(parseDatastoreEndpoint('etcd://10.0.0.1:2379,etcd-2.example:2379')).toEqual({
      kind: 'etcd',
      endpoints: ['http://10.0.0.1:2379', 'http://etcd-2.example:2379'],
    });
  });

  it('switches to TLS with a CA, and takes a client certificate and key', () => {
    expect(
      parseDatastoreEndpoint('etcd://[::1]:2379?cacert=/pki/ca.crt&cert=/pki/client.crt&key=/pki/client.key'),
    ).toEqual({
      kind: 'etcd',
      endpoints: ['https://[::1]:2379'],
      tls: { caFile: '/pki/ca.crt', certFile: '/pki/client.crt', keyFile: '/pki/client.key' },
    });
  });

  it.each([
    ['etcd://', 'needs HOST:PORT'],
    ['etcd://host', '"host" is not HOST:PORT'],
    ['etcd://host:99999', '"host:99999" is not HOST:PORT'],
    ['etcd://a:1,,b:2', 'needs HOST:PORT'],
    ['etcd://a:1?ca=/x', 'unknown parameter ca'],
    ['etcd://a:1?cacert=/ca&cert=/c', 'cert and key go together'],
    ['etcd://a:1?cert=/c&key=/k', 'a client certificate needs cacert'],
    ['mysql://root@db/k', 'scheme mysql:// is not supported'],
    ['state.db', 'without a scheme is not supported'],
  ])('refuses %s', (endpoint, message) => {
    expect(() => parseDatastoreEndpoint(endpoint)).toThrow(StoreOpenError);
    expect(() => parseDatastoreEndpoint(endpoint)).toThrow(message);
  });

  it('keeps sqlite and postgres as they were', () => {
    expect(parseDatastoreEndpoint('sqlite:///var/tkube/state.db')).toEqual({
      kind: 'sqlite',
      path: '/var/tkube/state.db',
    });
    expect(parseDatastoreEndpoint('postgres://u:p@db:5432/k')).toEqual({
      kind: 'postgres',
      url: 'postgres://u:p@db:5432/k',
    });
  });

  it("opens SQLite without loading the other engines' clients (pg made every start load fetch)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tkube-datastore-'));
    try {
      const fixture = new URL('./fixtures/open-sqlite-datastore.ts', import.meta.url).pathname;
      const result = await execa(process.execPath, ['--import', 'tsx', fixture, join(dir, 'state.db')]);
      expect(JSON.parse(result.stdout)).toEqual({ fetch: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
