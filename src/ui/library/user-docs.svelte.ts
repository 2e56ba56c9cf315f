/**
 * The Library's state of the user's own documents: the list, the load problems, the
 * running operation with its progress, and the actions (add, import, remove, re-index, export).
 * The work runs in the runtime worker; files are read here (extract-text.ts).
 */
import type { ManifestSource } from '../../core/index/manifest';
import { validateUserDocumentForm, type FormField } from '../../core/userdocs/form';
import { duplicateOf, parseUserDocumentExport } from '../../core/userdocs/export-file';
import { USER_DOCUMENT_NOTICE } from '../../core/userdocs/user-index';
import { shown } from '../../core/userdocs/validate';
import { extractText } from './extract-text';
import type { SkyCiteRuntime } from '../../runtime/types';
import { userDocumentExport, type UserDocumentInfo, type UserDocumentProgress } from '../../runtime/user-documents';
import { createUserDocsStore, type UserDocsStore } from '../../storage/user-docs-store';
import { downloadText } from '../format';

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
  /** What is running ("Adding …"), with the worker's progress. */
  busy: { label: string; progress: UserDocumentProgress | null } | null = $state(null);
  error: string | null = $state(null);
  done: string | null = $state(null);

  /**
   * True while the list comes straight from the device store because the built-in index could not
   * load: the documents are listed and can be exported, not searched, re-indexed or removed.
   */
  storedOnly = $state(false);

  constructor(private readonly runtime: SkyCiteRuntime) {}

  /** The index could not load: list the stored documents from the device store (never throws). */
  async listStored(open: () => UserDocsStore = () => createUserDocsStore()): Promise<void> {
    if (this.loaded && !this.storedOnly) return;
    const store = open();
    try {
      const r = await store.list();
      this.documents = r.records.map((rec) => ({ id: rec.id, ...rec.meta, chunkCount: rec.chunks.length, pageStart: rec.document.pageStart, pageEnd: rec.document.pageEnd, stored: true }));
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
    if (this.busy) this.busy = { ...this.busy, progress: p };
  }

  /** Field problems of a request (shown beside the fields), or null when it can be added. */
  check(r: { file: File | null; title: string; jurisdiction: string; edition: string }): Partial<Record<FormField, string>> | null {
    const v = validateUserDocumentForm({ fileName: r.file?.name ?? '', fileBytes: r.file?.size ?? 0, mime: r.file?.type ?? '', title: r.title, jurisdiction: r.jurisdiction, edition: r.edition });
    return v.ok ? null : v.problems;
  }

  private async run<T>(label: string, f: () => Promise<T>): Promise<T | null> {
    if (this.busy) return null;
    this.busy = { label, progress: null };
    this.error = null;
    this.done = null;
    try {
      return await f();
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
      return null;
    } finally {
      this.busy = null;
    }
  }

  /** Read, chunk, embed, store and index each file in turn; stops at the first failure (the others are not added). */
  async add(requests: AddRequest[]): Promise<boolean> {
    const added: string[] = [];
    const ok = await this.run(`Adding ${requests.length === 1 ? `“${requests[0]!.title}”` : `${requests.length} documents`}`, async () => {
      for (const r of requests) {
        const v = validateUserDocumentForm({ fileName: r.file.name, fileBytes: r.file.size, mime: r.file.type, title: r.title, jurisdiction: r.jurisdiction, edition: r.edition });
        if (!v.ok) throw new Error(`${shown(r.file.name)}: ${Object.values(v.problems).join(' ')}`);
        this.progress({ stage: 'reading', title: v.value.title, done: 0, total: 1 });
        const pages = await extractText(r.file, v.value.format);
        const info = await this.runtime.addUserDocument({ ...v.value, fileName: r.file.name, pages }, (p) => this.progress(p));
        this.documents = [...this.documents, info];
        added.push(`“${info.title}” (${info.chunkCount} passage${info.chunkCount === 1 ? '' : 's'})`);
      }
      return true;
    });
    if (added.length) {
      const kept = this.documents.every((d) => d.stored) ? ' and kept on this device' : '';
      this.done = `Added ${added.join(', ')}. ${added.length === 1 ? 'It is' : 'They are'} searched with the built-in documents${kept}.`;
    }
    return ok === true;
  }

  /**
   * Read documents exported by SkyCite ("Export (JSON)", here or on another device) back in:
   * each file is checked, refused when the same title, edition and jurisdiction is already
   * there, then chunked and embedded again like an added file. Stops at the first failure.
   */
  async importExports(files: File[]): Promise<boolean> {
    const imported: string[] = [];
    const ok = await this.run(`Importing ${files.length === 1 ? `“${shown(files[0]!.name)}”` : `${files.length} files`}`, async () => {
      for (const file of files) {
        const parsed = parseUserDocumentExport(file.name, await file.text(), file.size);
        if (!parsed.ok) throw new Error(parsed.message);
        const same = duplicateOf(parsed.value, this.documents);
        if (same) throw new Error(`${shown(file.name)}: “${same.title}” (${same.edition}, ${same.jurisdiction}) is already among your documents. Remove it first to import this copy.`);
        const info = await this.runtime.addUserDocument(parsed.value, (p) => this.progress(p));
        this.documents = [...this.documents, info];
        imported.push(`“${info.title}” (${info.chunkCount} passage${info.chunkCount === 1 ? '' : 's'})`);
      }
      return true;
    });
    if (imported.length) this.done = `Imported ${imported.join(', ')}. ${imported.length === 1 ? 'It is' : 'They are'} searched with the built-in documents.`;
    return ok === true;
  }

  async remove(d: UserDocumentInfo): Promise<void> {
    await this.run(`Removing “${d.title}”`, async () => {
      await this.runtime.removeUserDocument(d.id);
      this.documents = this.documents.filter((x) => x.id !== d.id);
      this.done = `Removed “${d.title}” from the index and from this device.`;
    });
  }

  /** A damaged stored record: only removal is possible. */
  async removeDamaged(id: string, problem: string): Promise<void> {
    await this.run(`Removing “${id}”`, async () => {
      await this.runtime.removeUserDocument(id);
      this.problems = this.problems.filter((p) => p !== problem);
      this.done = `Removed the damaged document “${id}”.`;
    });
  }

  async reindex(d: UserDocumentInfo): Promise<void> {
    await this.run(`Re-indexing “${d.title}”`, async () => {
      const info = await this.runtime.reindexUserDocument(d.id, (p) => this.progress(p));
      this.documents = this.documents.map((x) => (x.id === d.id ? info : x));
      this.done = `Re-indexed “${d.title}”: ${info.chunkCount} passages.`;
    });
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
      if (!record) throw new Error('This document is no longer stored on this device.');
      return userDocumentExport(record, new Date());
    } finally {
      store.close();
    }
  }

  /** A user's document as a source (titles and notices in citations and the passage viewer). */
  source(docId: string): ManifestSource | undefined {
    const d = this.documents.find((x) => x.id === docId);
    return d
      ? { id: d.id, title: d.title, edition: d.edition, jurisdiction: d.jurisdiction, sha256: '', via: 'your device', verbatim: true, chunkCount: d.chunkCount, reuseNotice: USER_DOCUMENT_NOTICE, editionNote: '' }
      : undefined;
  }
}
