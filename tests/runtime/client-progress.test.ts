/** The worker client: progress messages of a long call reach its callback, and only the final reply settles it. */
import { describe, expect, it } from 'vitest';
import { createRuntimeClient } from '../../src/runtime/client.js';
import type { RuntimeReply, RuntimeRequest } from '../../src/runtime/types.js';
import type { UserDocumentProgress } from '../../src/runtime/user-documents.js';

describe('the runtime client', () => {
  it("passes the worker's progress messages to the callback, without the callback in the request", async () => {
    const sent: RuntimeRequest[] = [];
    const worker = {
      onmessage: null as ((ev: MessageEvent<RuntimeReply>) => void) | null,
      onerror: null,
      postMessage(req: RuntimeRequest) {
        sent.push(req);
        const reply = (data: RuntimeReply) => queueMicrotask(() => this.onmessage!({ data } as MessageEvent<RuntimeReply>));
        reply({ id: req.id, progress: { stage: 'embedding', title: 'T', done: 1, total: 2 } });
        reply({ id: req.id, progress: { stage: 'embedding', title: 'T', done: 2, total: 2 } });
        reply({ id: req.id, ok: true, value: { id: 'user/t' } });
      },
      terminate() {},
    };
    const client = createRuntimeClient(worker as unknown as Worker);
    const seen: UserDocumentProgress[] = [];
    const input = { title: 'T', jurisdiction: 'DE', edition: '1', fileName: 't.txt', format: 'text' as const, pages: 'text' };
    const info = await client.addUserDocument(input, (p) => seen.push(p));
    expect(info).toEqual({ id: 'user/t' });
    expect(seen.map((p) => p.done)).toEqual([1, 2]);
    expect(sent).toEqual([{ id: 1, method: 'addUserDocument', args: [input] }]);
  });
});
