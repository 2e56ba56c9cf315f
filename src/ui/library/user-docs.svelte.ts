/**
 * The Library's state of the user's own documents: the list, the load problems, the
 * running operation with its progress, and the actions (add, import, remove, re-index, export).
 * The work runs in the runtime worker; files are read here (extract-text.ts).
 */
import { SkyCiteError } from '../../core/errors';
import type { ManifestSource } from '../../core/index/manifest';
import { validateUserDocumentForm, type FormField } from '../../core/userdocs/form';
import { duplicateOf, parseUserDocumentExport } from '../../core/userdocs/export-file';
import { USER_DOCUMENT_NOTICE } from '../../core/userdocs/user-index';
import { comparable, shown, UserDocumentError } from '../../core/userdocs/validate';
import { extractText, FileReadCancelledError, fileSizeProblem } from './extract-text';
import type { SkyCiteRuntime } from '../../runtime/types';
import { userDocumentExport, type UserDocumentInfo, type UserDocumentProgress } from '../../runtime/user-documents';
import { createUserDocsStore, type UserDocsStore } from '../../storage/user-docs-store';
import { downloadText } from '../format';
import { whileImporting } from '../../pwa/import-lock';

/**
 * Seconds left of an embedding, from its pace since `since` (the first progress seen of it), or
 * null until there is a pace to go by (a few texts done and a second elapsed).
 */
export function importEta(since: { at: number; done: number }, now: number, p: Pick<UserDocumentProgress, 'done' | 'total'>): number | null {
  const done = p.done - since.done;
  const elapsed = (now - since.at) / 1000;
  if (done <= 0 || elapsed < 1) return null;
  return Math.max(0, Math.round(((p.total - p.done) * elapsed) / done));
}

/** "about 3 min left", "about 40 s left". */
export function etaText(seconds: number): string {
  if (seconds >= 90) return `about ${Math.round(seconds / 60)} min left`;
  if (seconds >= 10) return `about ${Math.round(seconds / 10) * 10} s left`;
  return 'a few seconds left';
}

/** An import stopped by Cancel, in the runtime (its error crosses the worker with its code) or while reading. */
const isCancelled = (e: unknown): boolean => e instanceof SkyCiteError && e.code === 'import-cancelled';

/** The BroadcastChannel on which a tab tells the others that it added or removed a document. */
export const USER_DOCS_CHANNEL = 'skycite-user-documents';
const CHANGED = 'skycite-user-documents-changed';

type Channel = Pick<BroadcastChannel, 'postMessage' | 'addEventListener'>;
const defaultChannel = (): Channel | null => {
  if (typeof BroadcastChannel !== 'function') return null;
  const channel = new BroadcastChannel(USER_DOCS_CHANNEL);
  // Node (tests): the channel does not keep the process alive
  (channel as { unref?: () => void }).unref?.();
  return channel;
};

export interface AddRequest {
  file: File;
  title: string;
  jurisdiction: string;
  edition: string;
}

export class UserDocsState {
  documents: UserDocumentInfo[] = $state.raw([]);
  /** Documents that could not be loaded, and why. */
  problems: string[] = $state.raw([]);
  loaded = $state(false);
  /** What is running ("Adding …"), with the worker's progress and, while embedding, the seconds left; `cancellable` for adds and re-indexes. */
  busy: { label: string; progress: UserDocumentProgress | null; eta?: number | null; cancellable?: boolean; cancelling?: boolean } | null = $state(null);
  error: string | null = $state(null);
  done: string | null = $state(null);

  /**
   * True while the list comes straight from the device store because the built-in index could not
   * load: the documents are listed and can be exported, not searched, re-indexed or removed.
   */
  storedOnly = $state(false);

  /** The pace of the embedding running now (for the ETA). */
  private since: { title: string; total: number; at: number; done: number } | null = null;
  /** Stops reading a file when Cancel is pressed (the runtime's part is cancelled in the worker). */
  private reading: AbortController | null = null;
  /** Another tab changed the stored documents while this one was busy: follow once it is done. */
  private syncPending = false;
  private readonly channel: Channel | null;

  constructor(
    private readonly runtime: SkyCiteRuntime,
    private readonly clock: () => number = () => performance.now(),
    channel: Channel | null = defaultChannel(),
  ) {
    this.channel = channel;
    channel?.addEventListener('message', (event) => {
      if ((event as MessageEvent).data?.type === CHANGED) void this.sync();
    });
  }

  /** Tell the other tabs that the stored documents changed (they follow: `sync`). */
  private announceChange(): void {
    try {
      this.channel?.postMessage({ type: CHANGED });
    } catch {
      // a closed channel: the other tabs see the change on their next load
    }
  }

  /**
   * Follow what another tab stored or removed: the runtime reads the device store again (documents
   * added there join the search here, removed ones leave it) and the list shows what is stored. Waits
   * while this tab is adding or removing something (never throws).
   */
  async sync(): Promise<void> {
    if (!this.loaded) return;
    if (this.busy) {
      this.syncPending = true;
      return;
    }
    this.syncPending = false;
    if (this.storedOnly) return this.listStored();
    try {
      const r = await this.runtime.syncUserDocuments();
      this.documents = r.documents;
      this.problems = r.problems;
    } catch {
      // the list stays as it was; the next change or load reads the store again
    }
  }

  /** The index could not load: list the stored documents from the device store (never throws). */
  async listStored(open: () => UserDocsStore = () => createUserDocsStore()): Promise<void> {
    if (this.loaded && !this.storedOnly) return;
    const store = open();
    try {
      const r = await store.list();
      this.documents = r.records.map((rec) => ({
        id: rec.id,
        ...rec.meta,
        chunkCount: rec.chunks.length,
        pageStart: rec.document.pageStart,
        pageEnd: rec.document.pageEnd,
        stored: true,
      }));
      this.problems = r.problems.map((p) => p.message);
      this.storedOnly = true;
    } catch (e) {
      this.problems = [e instanceof Error ? e.message : String(e)];
    } finally {
      store.close();
      this.loaded = true;
    }
  }

  /** The stored documents into the index (after the index is ready); embedded again with progress when the model changed. */
  async load(): Promise<void> {
    this.busy = { label: 'Loading your documents', progress: null };
    try {
      const r = await this.runtime.loadUserDocuments((p) => this.progress(p));
      this.storedOnly = false;
      this.documents = r.documents;
      this.problems = r.problems;
    } catch (e) {
      this.problems = [e instanceof Error ? e.message : String(e)];
    } finally {
      this.busy = null;
      this.loaded = true;
    }
  }

  private progress(p: UserDocumentProgress): void {
    if (!this.busy) return;
    let eta: number | null = null;
    if (p.stage === 'embedding') {
      const now = this.clock();
      if (!this.since || this.since.title !== p.title || this.since.total !== p.total || p.done < this.since.done)
        this.since = { title: p.title, total: p.total, at: now, done: p.done };
      eta = importEta(this.since, now, p);
    } else this.since = null;
    this.busy = { ...this.busy, progress: p, eta };
  }

  /**
   * Cancel the add, import or re-index that is running: reading stops, the runtime stops before its
   * next batch, nothing is stored and the library stays as it was (files already added stay).
   */
  async cancel(): Promise<void> {
    if (!this.busy?.cancellable || this.busy.cancelling) return;
    this.busy = { ...this.busy, cancelling: true };
    this.reading?.abort();
    await this.runtime.cancelUserDocumentImport().catch(() => false);
  }

  /** Field problems of a request (shown beside the fields), or null when it can be added. */
  check(r: { file: File | null; title: string; jurisdiction: string; edition: string }): Partial<Record<FormField, string>> | null {
    const v = validateUserDocumentForm({
      fileName: r.file?.name ?? '',
      fileBytes: r.file?.size ?? 0,
      mime: r.file?.type ?? '',
      title: r.title,
      jurisdiction: r.jurisdiction,
      edition: r.edition,
    });
    // a file whose size alone is over the limits is refused here, before it is read
    const tooBig = v.ok && r.file ? fileSizeProblem(r.file, v.value.format) : null;
    return tooBig ? { file: tooBig } : v.ok ? null : v.problems;
  }

  private async run<T>(label: string, f: () => Promise<T>, cancellable = false): Promise<T | null> {
    if (this.busy) return null;
    this.busy = { label, progress: null, cancellable };
    this.error = null;
    this.done = null;
    this.since = null;
    this.reading = cancellable ? new AbortController() : null;
    try {
      // an add, import or re-index holds the import lock: an update accepted meanwhile (here or in another tab) waits for it
      return await (cancellable ? whileImporting(f) : f());
    } catch (e) {
      if (isCancelled(e))
        this.done = `Cancelled: ${label.charAt(0).toLowerCase()}${label.slice(1)} was stopped. Nothing of it was stored and your library is as it was.`;
      else this.error = e instanceof Error ? e.message : String(e);
      return null;
    } finally {
      this.busy = null;
      this.reading = null;
      if (this.syncPending) void this.sync();
    }
  }

  /** Read, chunk, embed, store and index each file in turn; stops at the first failure (the others are not added). */
  async add(requests: AddRequest[]): Promise<boolean> {
    const added: string[] = [];
    const addedIds: string[] = [];
    const ok = await this.run(
      `Adding ${requests.length === 1 ? `“${requests[0]!.title}”` : `${requests.length} documents`}`,
      async () => {
        for (const r of requests) {
          const v = validateUserDocumentForm({
            fileName: r.file.name,
            fileBytes: r.file.size,
            mime: r.file.type,
            title: r.title,
            jurisdiction: r.jurisdiction,
            edition: r.edition,
          });
          if (!v.ok) throw new UserDocumentError(`${shown(r.file.name)}: ${Object.values(v.problems).join(' ')}`);
          this.progress({ stage: 'reading', title: v.value.title, done: 0, total: 1 });
          const pages = await extractText(r.file, v.value.format, this.reading?.signal);
          // Cancel pressed while the file was read (the runtime had nothing to cancel yet)
          if (this.reading?.signal.aborted) throw new FileReadCancelledError(r.file.name);
          const info = await this.runtime.addUserDocument({ ...v.value, fileName: r.file.name, pages }, (p) => this.progress(p));
          this.documents = [...this.documents, info];
          added.push(`“${info.title}” (${info.chunkCount} passage${info.chunkCount === 1 ? '' : 's'})`);
          addedIds.push(info.id);
          this.announceChange();
        }
        return true;
      },
      true,
    );
    if (added.length) {
      // what is stored now, other tabs' documents included (one of them may have the same title)
      this.syncPending = false;
      await this.sync();
      const kept = this.documents.every((d) => d.stored) ? ' and kept on this device' : '';
      // set by run() only when the rest was cancelled
      const cancelled = this.done ? ` ${this.done}` : '';
      this.done = `Added ${added.join(', ')}. ${added.length === 1 ? 'It is' : 'They are'} searched with the built-in documents${kept}.${this.sameTitleNote(addedIds)}${cancelled}`;
    }
    return ok === true;
  }

  /** " “X” is kept beside your other document of the same title (edition E)." for each added document that has a namesake. */
  private sameTitleNote(ids: readonly string[]): string {
    const notes: string[] = [];
    for (const id of ids) {
      const d = this.documents.find((x) => x.id === id);
      if (!d) continue;
      const others = this.documents.filter((x) => x.id !== id && comparable(x.title) === comparable(d.title));
      if (others.length)
        notes.push(
          ` “${shown(d.title)}” is kept beside your other document${others.length === 1 ? '' : 's'} of the same title (${others.map((o) => `edition ${shown(o.edition, 40)}`).join(', ')}); remove the one you no longer need.`,
        );
    }
    return notes.join('');
  }

  /**
   * Read documents exported by SkyCite ("Export (JSON)", here or on another device) back in:
   * each file is checked, refused when the same title, edition and jurisdiction is already
   * there, then chunked and embedded again like an added file. Stops at the first failure.
   */
  async importExports(files: File[]): Promise<boolean> {
    const imported: string[] = [];
    const ok = await this.run(
      `Importing ${files.length === 1 ? `“${shown(files[0]!.name)}”` : `${files.length} files`}`,
      async () => {
        for (const file of files) {
          if (this.reading?.signal.aborted) throw new FileReadCancelledError(file.name);
          const parsed = parseUserDocumentExport(file.name, await file.text(), file.size);
          if (!parsed.ok) throw new UserDocumentError(parsed.message);
          const same = duplicateOf(parsed.value, this.documents);
          if (same)
            throw new UserDocumentError(
              `${shown(file.name)}: “${same.title}” (${same.edition}, ${same.jurisdiction}) is already among your documents. Remove it first to import this copy.`,
            );
          const info = await this.runtime.addUserDocument(parsed.value, (p) => this.progress(p));
          this.documents = [...this.documents, info];
          this.announceChange();
          imported.push(`“${info.title}” (${info.chunkCount} passage${info.chunkCount === 1 ? '' : 's'})`);
        }
        return true;
      },
      true,
    );
    if (imported.length)
      this.done = `Imported ${imported.join(', ')}. ${imported.length === 1 ? 'It is' : 'They are'} searched with the built-in documents.${this.done ? ` ${this.done}` : ''}`;
    return ok === true;
  }

  async remove(d: UserDocumentInfo): Promise<void> {
    await this.run(`Removing “${d.title}”`, async () => {
      await this.runtime.removeUserDocument(d.id);
      this.documents = this.documents.filter((x) => x.id !== d.id);
      this.announceChange();
      this.done = `Removed “${d.title}” from the index and from this device.`;
    });
  }

  /** A damaged stored record: only removal is possible. */
  async removeDamaged(id: string, problem: string): Promise<void> {
    await this.run(`Removing “${id}”`, async () => {
      await this.runtime.removeUserDocument(id);
      this.problems = this.problems.filter((p) => p !== problem);
      this.announceChange();
      this.done = `Removed the damaged document “${id}”.`;
    });
  }

  async reindex(d: UserDocumentInfo): Promise<void> {
    await this.run(
      `Re-indexing “${d.title}”`,
      async () => {
        const info = await this.runtime.reindexUserDocument(d.id, (p) => this.progress(p));
        this.documents = this.documents.map((x) => (x.id === d.id ? info : x));
        this.announceChange();
        this.done = `Re-indexed “${d.title}”: ${info.chunkCount} passages.`;
      },
      true,
    );
  }

  async export(d: UserDocumentInfo): Promise<void> {
    await this.run(`Exporting “${d.title}”`, async () => {
      const data = this.storedOnly ? await this.exportStored(d.id) : await this.runtime.exportUserDocument(d.id);
      downloadText(`${d.id.replace(/^user\//, '')}.skycite.json`, JSON.stringify(data, null, 2));
    });
  }

  private async exportStored(id: string) {
    const store = createUserDocsStore();
    try {
      const record = (await store.list()).records.find((r) => r.id === id);
      if (!record) throw new UserDocumentError('This document is no longer stored on this device.');
      return userDocumentExport(record, new Date());
    } finally {
      store.close();
    }
  }

  /** A user's document as a source (titles and notices in citations and the passage viewer). */
  source(docId: string): ManifestSource | undefined {
    const d = this.documents.find((x) => x.id === docId);
    return d
      ? {
          id: d.id,
          title: d.title,
          edition: d.edition,
          jurisdiction: d.jurisdiction,
          sha256: '',
          via: 'your device',
          verbatim: true,
          chunkCount: d.chunkCount,
          reuseNotice: USER_DOCUMENT_NOTICE,
          editionNote: '',
        }
      : undefined;
  }
}
