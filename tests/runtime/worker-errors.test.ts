/**
 * Errors keep their class, code and fields across the runtime worker (core/errors.ts encodeError and
 * decodeError, src/runtime/worker-serve.ts and client.ts): the runtime's side throws, the page's side
 * catches the same class — nothing on the page reads a name string or a message.
 */
import { describe, expect, it } from 'vitest';
import { decodeError, encodeError, errorClasses, SkyCiteError } from '../../src/core/errors.js';
import { GpuMemoryError } from '../../src/core/llm/errors.js';
import { StorageQuotaError } from '../../src/storage/errors.js';
import { createRuntimeClient } from '../../src/runtime/client.js';
import { RUNTIME_ERROR_CLASSES } from '../../src/runtime/error-classes.js';
import { IndexSourceError, RuntimeWorkerError } from '../../src/runtime/errors.js';
import { IndexFetchError } from '../../src/runtime/fetch-bytes.js';
import type { RuntimeReply, RuntimeRequest, SkyCiteRuntime } from '../../src/runtime/types.js';
import { UserDocumentImportCancelledError } from '../../src/runtime/user-documents.js';
import { serveRuntime } from '../../src/runtime/worker-serve.js';
import { IndexIntegrityError } from '../../src/core/index/manifest.js';

/** A client and a runtime that throws `failure`, connected as a Worker is: messages structured-cloned, delivered later. */
function connected(failure: unknown) {
  const runtime = { listUserDocuments: async () => Promise.reject(failure) } as unknown as SkyCiteRuntime;
  const worker = {
    onmessage: null as ((ev: MessageEvent<RuntimeReply>) => void) | null,
    onerror: null as ((ev: { message: string }) => void) | null,
    postMessage(req: RuntimeRequest) {
      const serve = serveRuntime(runtime, (reply) => queueMicrotask(() => this.onmessage!({ data: structuredClone(reply) } as MessageEvent<RuntimeReply>)));
      void serve(structuredClone(req));
    },
    terminate() {},
  };
  return { client: createRuntimeClient(worker as unknown as Worker), worker };
}

const caught = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

describe('errors across the runtime worker', () => {
  it('arrive as their own class with their code and fields', async () => {
    const fetchFailure = await caught(connected(new IndexFetchError('Fetching x failed with HTTP 404.', 404)).client.listUserDocuments());
    expect(fetchFailure).toBeInstanceOf(IndexFetchError);
    expect(fetchFailure).toMatchObject({ code: 'index-fetch', status: 404, message: 'Fetching x failed with HTTP 404.', name: 'IndexFetchError' });

    const cancelled = await caught(connected(new UserDocumentImportCancelledError('Manual')).client.listUserDocuments());
    expect(cancelled).toBeInstanceOf(UserDocumentImportCancelledError);
    expect((cancelled as SkyCiteError).code).toBe('import-cancelled');

    const quota = await caught(connected(new StorageQuotaError('your document')).client.listUserDocuments());
    expect(quota).toBeInstanceOf(StorageQuotaError);
    expect((quota as Error).message).toMatch(/storage for SkyCite is full/);
  });

  it('keep where the problem is, and their cause', async () => {
    const cause = new IndexIntegrityError('The static index manifest is not valid JSON.');
    const e = await caught(connected(new IndexSourceError('device', cause)).client.listUserDocuments());
    expect(e).toBeInstanceOf(IndexSourceError);
    expect((e as IndexSourceError).source).toBe('device');
    expect((e as Error).cause).toBeInstanceOf(IndexIntegrityError);
  });

  it('a built-in error stays one, anything else thrown arrives as an Error with its text', async () => {
    const type = await caught(connected(new TypeError('Failed to fetch')).client.listUserDocuments());
    expect(type).toBeInstanceOf(TypeError);
    const text = await caught(connected('a string').client.listUserDocuments());
    expect(text).toBeInstanceOf(Error);
    expect((text as Error).message).toBe('a string');
  });

  it('the worker failing rejects what waits with RuntimeWorkerError', async () => {
    const runtime = { listUserDocuments: () => new Promise(() => {}) } as unknown as SkyCiteRuntime;
    const worker = {
      onmessage: null,
      onerror: null as ((ev: { message: string }) => void) | null,
      postMessage(req: RuntimeRequest) {
        void serveRuntime(runtime, () => {})(req);
      },
      terminate() {},
    };
    const client = createRuntimeClient(worker as unknown as Worker);
    const pending = caught(client.listUserDocuments());
    worker.onerror!({ message: 'out of memory' });
    const e = await pending;
    expect(e).toBeInstanceOf(RuntimeWorkerError);
    expect((e as SkyCiteError).code).toBe('runtime-worker-crashed');
  });

  it('the codec rebuilds a class only the registry names; the model layer’s fields survive', () => {
    const wire = structuredClone(encodeError(new GpuMemoryError('DeviceLostError: lost')));
    expect(wire).toMatchObject({ name: 'GpuMemoryError', code: 'gpu-memory' });
    const back = decodeError(wire, RUNTIME_ERROR_CLASSES);
    expect(back).toBeInstanceOf(GpuMemoryError);
    expect(back).toMatchObject({ summary: expect.stringMatching(/GPU ran out of memory/), retryable: false, detail: 'DeviceLostError: lost' });
    const unknown = decodeError(wire, errorClasses({}));
    expect(unknown).not.toBeInstanceOf(SkyCiteError);
    expect(unknown.message).toBe(new GpuMemoryError().message);
  });
});
