// A streaming ustar writer: node images and build contexts are tar streams assembled from host
// files and generated content, with no copy on disk and root as every file's owner.
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';

export type TarEntry =
  | { type: 'directory'; path: string; mode: number }
  | { type: 'symlink'; path: string; target: string }
  | { type: 'file'; path: string; mode: number; content: Uint8Array }
  /** A host file streamed as it is; `size` is checked against what is read. */
  | { type: 'hostFile'; path: string; mode: number; source: string; size: number };

const BLOCK = 512;

export function tarStream(entries: Iterable<TarEntry>): Readable {
  return Readable.from(tarChunks(entries), { objectMode: false });
}

async function* tarChunks(entries: Iterable<TarEntry>): AsyncGenerator<Buffer> {
  for (const entry of entries) {
    yield header(entry);
    if (entry.type === 'file') {
      yield Buffer.from(entry.content);
      yield padding(entry.content.length);
    } else if (entry.type === 'hostFile') {
      let read = 0;
      for await (const chunk of createReadStream(entry.source)) {
        read += (chunk as Buffer).length;
        if (read > entry.size) throw new Error(`${entry.source} grew while being archived`);
        yield chunk as Buffer;
      }
      if (read !== entry.size) throw new Error(`${entry.source} shrank while being archived`);
      yield padding(entry.size);
    }
  }
  yield Buffer.alloc(BLOCK * 2);
}

function padding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

const TYPE_FLAGS = { file: '0', hostFile: '0', symlink: '2', directory: '5' } as const;

/** One ustar header block; paths are relative to the archive root ("usr/bin/x", "etc/"). */
export function header(entry: TarEntry): Buffer {
  const block = Buffer.alloc(BLOCK);
  const relative = entry.path.replace(/^\/+/, '') + (entry.type === 'directory' ? '/' : '');
  const [prefix, name] = splitPath(relative);
  const size = entry.type === 'file' ? entry.content.length : entry.type === 'hostFile' ? entry.size : 0;
  const mode = entry.type === 'symlink' ? 0o777 : entry.mode;
  block.write(name, 0, 100, 'utf8');
  writeOctal(block, 100, 8, mode & 0o7777);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, 0);
  block.fill(' ', 148, 156);
  block.write(TYPE_FLAGS[entry.type], 156, 1, 'ascii');
  if (entry.type === 'symlink') {
    if (Buffer.byteLength(entry.target) > 100)
      throw new Error(`symlink target too long for tar: ${entry.target}`);
    block.write(entry.target, 157, 100, 'utf8');
  }
  block.write('ustar\u000000', 257, 8, 'ascii');
  block.write('root', 265, 32, 'ascii');
  block.write('root', 297, 32, 'ascii');
  block.write(prefix, 345, 155, 'utf8');
  let checksum = 0;
  for (const byte of block) checksum += byte;
  block.write(`${checksum.toString(8).padStart(6, '0')}\u0000 `, 148, 8, 'ascii');
  return block;
}

/** ustar keeps names of up to 100 bytes, with up to 155 more in a prefix split at a slash. */
function splitPath(path: string): [string, string] {
  if (Buffer.byteLength(path) <= 100) return ['', path];
  for (let cut = path.indexOf('/'); cut !== -1; cut = path.indexOf('/', cut + 1)) {
    const prefix = path.slice(0, cut);
    const name = path.slice(cut + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100 && name !== '')
      return [prefix, name];
  }
  throw new Error(`path too long for tar: ${path}`);
}

function writeOctal(block: Buffer, offset: number, length: number, value: number): void {
  block.write(`${value.toString(8).padStart(length - 1, '0')}\u0000`, offset, length, 'ascii');
}
