// Reading a request body: chunks joined, kube-apiserver's 3 MiB limit enforced on what arrives
// (not only on Content-Length), and a request closed before its end rejected rather than hung.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MAX_REQUEST_BODY_BYTES, readBody } from '../../../src/apiserver/http/body.js';
import type { ApiRequest } from '../../../src/apiserver/http/types.js';

/** A request whose body is `chunks`, sent without a Content-Length (chunked). */
function request(chunks: Buffer[], options: { endEarly?: boolean } = {}): ApiRequest & Readable {
  const stream = new Readable({ read() {} }) as Readable & { headers: Record<string, string> };
  stream.headers = {};
  setImmediate(() => {
    for (const chunk of chunks) stream.push(chunk);
    if (options.endEarly) stream.destroy();
    else stream.push(null);
  });
  return stream as unknown as ApiRequest & Readable;
}

describe('readBody', () => {
  it('joins the chunks of a body', async () => {
    const body = await readBody(request([Buffer.from('{"a":'), Buffer.from('1}')]));
    expect(body.toString()).toBe('{"a":1}');
  });

  it('answers an empty body with an empty buffer', async () => {
    expect((await readBody(request([]))).length).toBe(0);
  });

  it('refuses a chunked body past the limit with 413 and stops reading', async () => {
    const half = Buffer.alloc(MAX_REQUEST_BODY_BYTES / 2 + 1);
    const req = request([half, half, half]);
    await expect(readBody(req)).rejects.toMatchObject({
      code: 413,
      reason: 'RequestEntityTooLarge',
      message: `Request entity too large: limit is ${MAX_REQUEST_BODY_BYTES}`,
    });
    expect(req.destroyed).toBe(true);
  });

  it('refuses a declared length past the limit before reading', async () => {
    const req = request([]);
    (req as unknown as { headers: Record<string, string> }).headers['content-length'] = String(
      MAX_REQUEST_BODY_BYTES + 1,
    );
    await expect(readBody(req)).rejects.toMatchObject({ code: 413 });
  });

  it('rejects a request closed before its end', async () => {
    await expect(readBody(request([Buffer.from('{"a":')], { endEarly: true }))).rejects.toMatchObject({
      code: 'ERR_STREAM_PREMATURE_CLOSE',
    });
  });
});
