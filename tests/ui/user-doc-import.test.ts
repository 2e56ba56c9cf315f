/**
 * The Library's side of a long import (issue 27, item 2): files over the limits are refused at
 * once (before they are read), the embedding shows the time left, and Cancel stops the import with
 * a message that nothing was stored.
 */
import { describe, expect, it } from 'vitest';
import { IMPORT_LIMITS, UserDocumentImportCancelledError, type UserDocumentInfo, type UserDocumentProgress } from '../../src/runtime/user-documents';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractText, FileReadError, FileTooLargeError, readPdf, type PdfjsLib } from '../../src/ui/library/extract-text';
import { nodePdfjs } from '../support/guidance-pdf';
import { etaText, importEta, UserDocsState } from '../../src/ui/library/user-docs.svelte';
import { createFakeRuntime } from './fake-runtime';

/** A file that records whether it was read. */
function fileOf(name: string, size: number, text = '') {
  const reads = { count: 0 };
  const file = {
    name,
    size,
    type: '',
    text: async () => (reads.count++, text),
    arrayBuffer: async () => (reads.count++, new ArrayBuffer(0)),
  };
  return { file: file as unknown as File, reads };
}

describe('reading a file with limits', () => {
  it('refuses a 29 MB text file at once, without reading it, saying the limit and why', async () => {
    const { file, reads } = fileOf('log.txt', 29_000_000);
    const t = performance.now();
    const err = (await extractText(file, 'text').catch((e: unknown) => e)) as Error;
    expect(performance.now() - t).toBeLessThan(100);
    expect(err).toBeInstanceOf(FileTooLargeError);
    expect(err.message).toContain('“log.txt” is 29.0 MB');
    expect(err.message).toContain(`at most ${(IMPORT_LIMITS.maxTextFileBytes / 1e6).toFixed(1)} MB`);
    expect(err.message).toMatch(/indexes in about \d+ minutes\)\. Nothing was added\. Split it/);
    expect(reads.count).toBe(0);
  });

  it('refuses a text over the character limit once it is read, and the Add form refuses an oversized file before reading', async () => {
    const text = 'x'.repeat(IMPORT_LIMITS.maxTextChars + 1);
    const { file } = fileOf('long.md', text.length, text);
    await expect(extractText(file, 'markdown')).rejects.toThrow(
      `has ${(IMPORT_LIMITS.maxTextChars + 1).toLocaleString('en')} characters of text; a document can have at most`,
    );
    const state = new UserDocsState(createFakeRuntime());
    const { file: big } = fileOf('log.txt', 29_000_000);
    expect(state.check({ file: big, title: 'Log', jurisdiction: 'DE', edition: '1' })?.file).toMatch(/is 29\.0 MB; a text or Markdown file can be at most/);
    const { file: small } = fileOf('ok.txt', 1000);
    expect(state.check({ file: small, title: 'Ok', jurisdiction: 'DE', edition: '1' })).toBeNull();
  });
});

/** A pdfjs stand-in: `numPages` pages of `perPage` characters each; counts the pages read. */
function fakePdfjs(numPages: number, perPage: number) {
  const read = { pages: 0 };
  const pdf = {
    numPages,
    getPage: async () => {
      read.pages++;
      return {
        getTextContent: async () => ({
          items: [{ str: 'x'.repeat(perPage), hasEOL: true, transform: [10, 0, 0, 10, 0, 700], width: 100, height: 10, fontName: 'f' }],
        }),
        cleanup: () => undefined,
      };
    },
    getMetadata: async () => ({ info: {}, metadata: null }),
    destroy: async () => undefined,
  };
  const lib = { getDocument: () => ({ promise: Promise.resolve(pdf), destroy: async () => undefined }) } as unknown as PdfjsLib;
  return { load: async () => lib, read };
}

describe('reading a PDF with limits', () => {
  it('refuses a PDF with too many pages from its page count, before reading a page', async () => {
    const { load, read } = fakePdfjs(IMPORT_LIMITS.maxPdfPages + 1, 100);
    await expect(readPdf(new Uint8Array(1), 'atlas.pdf', undefined, load)).rejects.toThrow(
      `“atlas.pdf” has ${IMPORT_LIMITS.maxPdfPages + 1} pages; a PDF can have at most ${IMPORT_LIMITS.maxPdfPages}`,
    );
    expect(read.pages).toBe(0);
  });

  it('stops reading a PDF as soon as its text passes the limit, and when Cancel is pressed', async () => {
    // 50,000 characters a page with its line end: the page that passes the limit is the last one read
    const long = fakePdfjs(IMPORT_LIMITS.maxPdfPages, 49_999);
    await expect(readPdf(new Uint8Array(1), 'long.pdf', undefined, long.load)).rejects.toBeInstanceOf(FileTooLargeError);
    expect(long.read.pages).toBe(IMPORT_LIMITS.maxTextChars / 50_000 + 1);
    const cancel = new AbortController();
    cancel.abort();
    const cancelled = fakePdfjs(10, 100);
    await expect(readPdf(new Uint8Array(1), 'short.pdf', cancel.signal, cancelled.load)).rejects.toThrow(
      'Reading “short.pdf” was cancelled. Nothing was added.',
    );
    expect(cancelled.read.pages).toBe(0);
  });
});

describe('the time left and Cancel', () => {
  it('estimates the time left from the pace so far', () => {
    expect(importEta({ at: 0, done: 0 }, 500, { done: 4, total: 100 })).toBeNull();
    expect(importEta({ at: 0, done: 0 }, 10_000, { done: 20, total: 100 })).toBe(40);
    expect(importEta({ at: 1_000, done: 10 }, 11_000, { done: 30, total: 130 })).toBe(50);
    expect(etaText(200)).toBe('about 3 min left');
    expect(etaText(42)).toBe('about 40 s left');
    expect(etaText(3)).toBe('a few seconds left');
  });

  it('shows the time left while embedding, and Cancel stops the add: nothing added, the message says so', async () => {
    let clock = 0;
    let cancelled = false;
    let cancels = 0;
    let report: ((p: UserDocumentProgress) => void) | undefined;
    const runtime = {
      ...createFakeRuntime(),
      // an add that embeds until it is cancelled, as the worker's does
      addUserDocument: (_input: unknown, onProgress?: (p: UserDocumentProgress) => void) =>
        new Promise<UserDocumentInfo>((_resolve, reject) => {
          report = onProgress;
          const step = () => {
            if (cancelled) reject(new UserDocumentImportCancelledError('Manual'));
            else setTimeout(step, 1);
          };
          step();
        }),
      cancelUserDocumentImport: async () => {
        cancels++;
        cancelled = true;
        return true;
      },
    };
    const state = new UserDocsState(runtime, () => clock);
    const adding = state.add([
      { file: new File(['Section 1\n\nThe pilot checks the battery.'], 'manual.txt'), title: 'Manual', jurisdiction: 'DE', edition: '1' },
    ]);
    await expect.poll(() => report !== undefined).toBe(true);
    report!({ stage: 'embedding', title: 'Manual', done: 0, total: 200 });
    clock = 10_000;
    report!({ stage: 'embedding', title: 'Manual', done: 50, total: 200 });
    expect(state.busy).toMatchObject({ cancellable: true, eta: 30 });
    await state.cancel();
    expect(cancels).toBe(1);
    expect(await adding).toBe(false);
    expect(state.busy).toBeNull();
    expect(state.error).toBeNull();
    expect(state.done).toMatch(/^Cancelled: adding “Manual” was stopped\. Nothing of it was stored and your library is as it was\./);
    expect(state.documents).toEqual([]);
  });

  it('Cancel while a file is being read: nothing is sent to the runtime, the message says it was cancelled', async () => {
    let release: (t: string) => void = () => undefined;
    let adds = 0;
    const runtime = {
      ...createFakeRuntime(),
      addUserDocument: async () => {
        adds++;
        throw new Error('should not be called');
      },
    };
    const state = new UserDocsState(runtime);
    const file = {
      name: 'rules.txt',
      size: 100,
      type: 'text/plain',
      text: () => new Promise<string>((r) => (release = r)),
      arrayBuffer: async () => new ArrayBuffer(0),
    } as unknown as File;
    const adding = state.add([{ file, title: 'Rules', jurisdiction: 'DE', edition: '1' }]);
    await expect.poll(() => state.busy?.progress?.stage).toBe('reading');
    await state.cancel();
    release('The pilot checks the battery.');
    expect(await adding).toBe(false);
    expect(adds).toBe(0);
    expect(state.error).toBeNull();
    expect(state.done).toMatch(/^Cancelled: adding “Rules” was stopped/);
  });

  it('refuses a password-protected PDF when pdf.js asks for its password (tests/fixtures/encrypted.pdf)', async () => {
    const bytes = new Uint8Array(readFileSync(join('tests', 'fixtures', 'encrypted.pdf')));
    const read = readPdf(bytes, 'protected.pdf', undefined, nodePdfjs);
    await expect(read).rejects.toBeInstanceOf(FileReadError);
    await expect(read).rejects.toThrow('The PDF is password-protected (encrypted). Save an unprotected copy (print to PDF) and add that.');
  });
});
