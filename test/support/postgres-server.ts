// A private PostgreSQL server for tests (issue 30): initdb in a temporary directory, started
// with pg_ctl on a free port, stopped and removed afterwards. Run as the `postgres` user
// when this process is root (PostgreSQL refuses to run as root).
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const SEARCH_DIRS = ['/usr/local/bin', '/usr/bin', ...postgresLibDirs()];

function postgresLibDirs(): string[] {
  try {
    return execFileSync('sh', ['-c', 'ls -d /usr/lib/postgresql/*/bin 2>/dev/null'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .reverse();
  } catch {
    return [];
  }
}

function findBinary(name: string): string | undefined {
  for (const dir of SEARCH_DIRS) {
    const path = join(dir, name);
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export function postgresSkipReason(): string | undefined {
  const missing = ['initdb', 'pg_ctl', 'postgres'].filter((name) => !findBinary(name));
  if (missing.length > 0)
    return `PostgreSQL server binaries not found (${missing.join(', ')}): apt-get install postgresql`;
  if (userInfo().uid === 0 && spawnSync('id', ['postgres']).status !== 0) {
    return 'running as root and there is no postgres user to run the server as';
  }
  return undefined;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface PostgresServer {
  readonly port: number;
  /** A URL for the database `name` (created by createDatabase). */
  url(name: string): string;
  createDatabase(name: string): Promise<string>;
  /** Stops the server, keeping its data (the datastore going away). */
  pause(): void;
  /** Starts it again on the same port. */
  resume(): void;
  stop(): void;
}

/**
 * initdb + pg_ctl start on a free port. Tests turn fsync off (speed, not power-loss safety);
 * benchmarks ask for `durable`, PostgreSQL's defaults, to compare like with like.
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<PostgresServer> {
  const dir = mkdtempSync('/tmp/tkube-pg-');
  const asRoot = userInfo().uid === 0;
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), 0);
  const run = (binary: string, args: string[]) => {
    const path = findBinary(binary)!;
    const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
    const result = spawnSync(command, argv, { encoding: 'utf8', timeout: 60_000 });
    if (result.status !== 0) throw new Error(`${binary} failed: ${result.stderr || result.stdout}`);
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'tkube', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const fast = options.durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${fast}`;
  run('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'log'), '-w', 'start']);
  const url = (name: string) => `postgres://tkube@127.0.0.1:${port}/${name}`;
  return {
    port,
    url,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url('postgres') });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    pause() {
      // A clean shutdown: the tests' server does not sync commits (synchronous_commit=off).
      run('pg_ctl', ['-D', data, '-m', 'fast', 'stop']);
    },
    resume() {
      run('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'log'), '-w', 'start']);
    },
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
