import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readEngineMessages } from '../../../src/providers/docker/engine-stream.js';
import { demultiplex } from '../../../src/providers/docker/logs.js';

describe('engine message streams', () => {
  it('reads JSON lines split across chunks', async () => {
    const stream = Readable.from(['{"stream":"Step 1/2 : FROM x"}\n{"sta', 'tus":"sha256:abc"}\n', '\n']);
    const seen: string[] = [];
    const messages = await readEngineMessages(stream, 'building', (message) =>
      seen.push(JSON.stringify(message)),
    );
    expect(messages).toEqual([{ stream: 'Step 1/2 : FROM x' }, { status: 'sha256:abc' }]);
    expect(seen).toHaveLength(2);
  });

  it('throws the first error message with its context', async () => {
    const stream = Readable.from([
      '{"stream":"ok"}\n{"errorDetail":{"message":"no space left"},"error":"no space left"}\n',
    ]);
    await expect(readEngineMessages(stream, 'importing x')).rejects.toThrow('importing x: no space left');
  });
});

describe('container log frames', () => {
  it('joins stdout and stderr frames without their headers', () => {
    const frame = (stream: number, text: string) => {
      const header = Buffer.alloc(8);
      header[0] = stream;
      header.writeUInt32BE(Buffer.byteLength(text), 4);
      return Buffer.concat([header, Buffer.from(text)]);
    };
    expect(demultiplex(Buffer.concat([frame(1, 'out\n'), frame(2, 'err\n')]))).toBe('out\nerr\n');
    expect(demultiplex(Buffer.from('plain text from a TTY\n'))).toBe('plain text from a TTY\n');
  });
});
