// FieldManagerThread (apply/field-manager-thread.ts), the apiserver's side of the field manager's
// thread, with a real worker thread: a worker cannot load the TypeScript sources under vitest, so
// the entry here is a small JavaScript program speaking the thread's protocol (answers, sliced ones, a
// failure answer, a stored text's size, a create check, and a crash), which is what the class
// itself handles.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FieldManagerThread } from '../../../../src/apiserver/apply/field-manager-thread.js';

const dir = mkdtempSync(join(tmpdir(), 'tkube-fm-thread-'));
const entry = join(dir, 'thread.mjs');
writeFileSync(
  entry,
  `import { parentPort, workerData } from 'node:worker_threads';
if (workerData?.tkubeFieldManagerThread !== true) throw new Error('not started as the field manager thread');
parentPort.on('message', (request) => {
  if ('createCheck' in request) return parentPort.postMessage({ id: request.id, createCheck: { storedText: JSON.stringify({ of: request.managedFieldsOf ?? null, managedFields: request.createCheck.object.metadata.managedFields }) } });
  if (request.manager === 'sliced') return parentPort.postMessage({ id: request.id, managedFieldsSlices: [{ at: [], op: 'array' }, { at: [], op: 'entries', json: '[{"manager":"sliced"}]' }] });
  if ('storedText' in request) return parentPort.postMessage(request.storedText === 'none' ? { id: request.id } : { id: request.id, storedSize: request.storedText.length * 2 });
  if (request.manager === 'crash') process.exit(3);
  if (request.manager === 'fail') return parentPort.postMessage({ id: request.id, error: 'no schema' });
  if (request.manager === 'none') return parentPort.postMessage({ id: request.id });
  const object = JSON.parse(request.object);
  parentPort.postMessage({ id: request.id, managedFields: JSON.stringify([{ manager: request.manager, operation: 'Update', fieldsV1: { name: object.metadata.name } }]) });
});
`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const request = (manager: string, name = 'p') => ({
  group: '',
  version: 'v1',
  kind: 'Pod',
  subresource: '',
  resetFields: ['status'],
  manager,
  object: JSON.stringify({ metadata: { name } }),
});

describe('FieldManagerThread', () => {
  it('answers concurrent requests each with its own entries, reports failures, and survives a crash', async () => {
    const thread = new FieldManagerThread(entry);
    try {
      const answers = await Promise.all([
        thread.update(request('a', 'one')),
        thread.update(request('b', 'two')),
      ]);
      expect(answers).toEqual([
        [{ manager: 'a', operation: 'Update', fieldsV1: { name: 'one' } }],
        [{ manager: 'b', operation: 'Update', fieldsV1: { name: 'two' } }],
      ]);
      expect(await thread.update(request('none'))).toBeUndefined();
      expect(await thread.storedSize('four')).toBe(8);
      await expect(thread.storedSize('none')).rejects.toThrow('the field manager thread answered no size');
      await expect(thread.update(request('fail'))).rejects.toThrow('no schema');
      await expect(thread.update(request('crash'))).rejects.toThrow(
        'the field manager thread exited (code 3)',
      );
      // A new thread is started for the next request.
      expect(await thread.update(request('c', 'three'))).toEqual([
        { manager: 'c', operation: 'Update', fieldsV1: { name: 'three' } },
      ]);
    } finally {
      thread.stop();
    }
  }, 30_000);

  it('takes managedFields in slices, and sends those it answered back to it as a placeholder', async () => {
    const thread = new FieldManagerThread(entry);
    try {
      const entries = await thread.update(request('sliced'));
      expect(entries).toEqual([{ manager: 'sliced' }]);
      const check = async (managedFields: unknown) => {
        const answer = await thread.checkCreate({
          group: '',
          kind: 'Pod',
          key: '/registry/pods/default/p',
          object: { metadata: { name: 'p', managedFields: managedFields as never } },
        });
        return JSON.parse((answer as { storedText: string }).storedText) as unknown;
      };
      expect(await check(entries)).toEqual({ of: expect.any(Number), managedFields: [] });
      // managedFields the thread did not answer (a client's own) travel whole.
      expect(await check([{ manager: 'sliced' }])).toEqual({
        of: null,
        managedFields: [{ manager: 'sliced' }],
      });
    } finally {
      thread.stop();
    }
  }, 30_000);

  it('fails what is pending when stopped', async () => {
    const thread = new FieldManagerThread(entry);
    const pending = thread.update(request('a'));
    thread.stop();
    await expect(pending).rejects.toThrow('the field manager thread stopped');
  });
});
