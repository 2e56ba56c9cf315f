/**
 * The corpus build: sources → page-aware documents → chunks → summaries,
 * keywords, cross-references, retrieval strings → embeddings → BM25 → static
 * index with a manifest of hashes. Written to a temporary folder and renamed
 * into place, so a failed build never leaves a partial `static-index/`.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Chunk } from '../../src/core/model/chunk.js';
import type { Embedder } from '../../src/core/embedding/embedder.js';
import { buildBm25 } from '../../src/core/index/bm25.js';
import { withIdentifiersAsPrinted } from '../../src/core/text/identifiers.js';
import { WINDOW_SCALE } from '../../src/core/index/load.js';
import { collapseWhitespace } from '../../src/core/text/sentences.js';
import { passageWindows, DEFAULT_WINDOWS } from '../../src/core/ingest/enrich/windows.js';
import { ARTIFACTS, INDEX_FORMAT_VERSION, type IndexManifest, type ManifestSource } from '../../src/core/index/manifest.js';
import { chunkEasaDocument, DEFAULT_CHUNKING } from '../chunking/easa-chunker.js';
import { chunkParagraphs } from '../../src/core/ingest/generic-chunker.js';
import { footnoteMarkersFor, footnoteNumbersByPage } from '../chunking/annotate.js';
import { checkBank, readBank, readBankSha } from '../bank/store.js';
import { fnv1a } from '../bank/bank.js';
import { quotableUnits, segmentUnits, unitQuote } from '../../src/core/text/units.js';
import { gridForChunk } from '../../src/core/sora/tables/grid.js';
import { enrichDrafts } from '../../src/core/ingest/enrich/drafts.js';
import { type DocumentUnit, documentNodeText, sectionNodeText, splitDocuments, DEFAULT_SUMMARY_BUDGET } from '../../src/core/ingest/documents.js';
import { CorpusBuildError } from '../errors.js';
import { loadCuratedChunks } from '../loaders/curated-json.js';
import { EASA_AMC_GM_LAYOUT, loadLayoutText } from '../loaders/easa-layout.js';
import { loadPdf } from '../loaders/pdf.js';
import { loadQaRules } from '../loaders/qa-rules-json.js';
import { SOURCES, type SourceEntry } from '../sources/registry.js';
import { type ResolveOptions, type ResolvedSource, resolveSource } from '../sources/resolve.js';
import { builderFingerprint } from './fingerprint.js';
import { VECTOR_SETS_FILE } from '../../src/core/index/vector-set.js';
import { questionsByChunk, readMeta } from '../synth/store.js';
import { type Progress, silentProgress } from './progress.js';

/**
 * The questions indexed with each passage (BM25 question field and question vectors): the question
 * bank (corpus-build/data/question-bank.jsonl, docs/question-bank.md) — all of it, its training part,
 * or one half of the training part by question id (to measure a new question about a passage whose
 * other questions are indexed) — the older model-written synthetic questions, or none.
 */
export type QuestionSource = 'none' | 'synthetic' | 'bank' | 'bank-train' | 'bank-train-a' | 'bank-train-b';

export interface BuildOptions extends ResolveOptions {
  /**
   * Index the committed synthetic questions (corpus-build/data): as BM25 text of
   * their passage and as extra vectors per passage. A missing or corrupt data file
   * fails the build with the file, its expected SHA-256 and the command that
   * regenerates it. Superseded by `questions`; `synthetic: true` is `questions: 'synthetic'`.
   */
  synthetic?: boolean;
  /** Which questions are indexed with their passages (default 'none', or 'synthetic' with `synthetic: true`). */
  questions?: QuestionSource;
  /** Where the synthetic-question data files are (default corpus-build/data). */
  syntheticDir?: string;
  /** Output folder (default `static-index`). */
  outDir?: string;
  /** Source ids to build (default: all registered). */
  sources?: string[];
  /** Registry to use (default SOURCES; tests inject their own). */
  registry?: readonly SourceEntry[];
  embedder: Embedder;
  /** Model file whose SHA-256 goes into the manifest. */
  modelFile: string;
  modelDtype: string;
  progress?: Progress;
  repoRoot?: string;
}

export interface StageTiming {
  stage: string;
  ms: number;
}

export interface BuildReport {
  outDir: string;
  chunkCount: number;
  perSource: { id: string; chunks: number; via: string; warnings: string[] }[];
  timings: StageTiming[];
  artifacts: Record<string, number>;
  warnings: string[];
}

export interface ChunkedSource {
  resolved: ResolvedSource;
  chunks: Chunk[];
  warnings: string[];
}

const decoder = new TextDecoder();

/** Enrich drafts of one source (shared with the browser: src/core/ingest/enrich/drafts.ts). */
export { enrichDrafts };

/** Load and chunk one resolved source (pure apart from PDF parsing). */
export async function chunkSource(resolved: ResolvedSource): Promise<ChunkedSource> {
  const { entry, bytes, format } = resolved;
  const meta = { docId: entry.id, edition: entry.edition, jurisdiction: entry.jurisdiction, language: entry.language };
  const warnings = [...resolved.warnings];
  switch (format) {
    case 'easa-layout-text': {
      const doc = loadLayoutText(decoder.decode(bytes), entry.id, EASA_AMC_GM_LAYOUT);
      warnings.push(...doc.diagnostics.warnings);
      // the footnote numbers printed on each chunk's pages: units.ts reads "–230" as "–2" and footnote 30
      const footnotes = footnoteNumbersByPage(doc.lines);
      const chunks = enrichDrafts(chunkEasaDocument(doc, meta, DEFAULT_CHUNKING)).map((c) => {
        const markers = footnoteMarkersFor(footnotes, c.pageStart, c.pageEnd);
        return markers.length ? { ...c, footnoteMarkers: markers } : c;
      });
      return { resolved, chunks, warnings };
    }
    case 'pdf': {
      const doc = await loadPdf(bytes, entry.id, { headerFooterPatterns: [EASA_AMC_GM_LAYOUT.footer, ...EASA_AMC_GM_LAYOUT.header] });
      warnings.push(...doc.diagnostics.warnings);
      for (const p of doc.diagnostics.unreadablePages) warnings.push(`page ${p.page} unreadable: ${p.reason}`);
      if (entry.format !== 'pdf') {
        warnings.push(
          `${entry.id}: built from the official PDF with paragraph chunking; structure-aware chunking needs the layout text (${entry.file.name}) in CORPUS_DIR.`,
        );
      }
      const drafts = chunkParagraphs(doc, { ...meta, title: entry.title });
      return { resolved, chunks: enrichDrafts(drafts), warnings };
    }
    case 'skysafe-curated-json':
      return { resolved, chunks: loadCuratedChunks(decoder.decode(bytes), meta), warnings };
    case 'qa-rules-json': {
      const chunks = loadQaRules(decoder.decode(bytes), { docId: entry.id, edition: entry.edition, language: entry.language });
      const enriched = enrichDrafts(chunks);
      return { resolved, chunks: enriched.map((c, i) => ({ ...c, links: chunks[i]!.links, retrieval: chunks[i]!.retrieval })), warnings };
    }
  }
}

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

export function quantizeInt8(vs: Float32Array[], dim: number): Uint8Array {
  const out = new Int8Array(vs.length * dim);
  vs.forEach((v, i) => {
    for (let k = 0; k < dim; k++) out[i * dim + k] = Math.max(-127, Math.min(127, Math.round(v[k]! * WINDOW_SCALE)));
  });
  return new Uint8Array(out.buffer);
}

export function packVectors(vs: Float32Array[], dim: number): Uint8Array {
  const out = new Float32Array(vs.length * dim);
  vs.forEach((v, i) => out.set(v, i * dim));
  // Float32Array is platform-endian; every supported platform is little-endian
  return new Uint8Array(out.buffer);
}

/**
 * Resolve, verify, load and chunk the registered sources (no embeddings): the
 * build's first stages, also used by tools that need the chunks alone.
 */
export async function chunkSources(
  opts: ResolveOptions & { registry?: readonly SourceEntry[]; sources?: string[] },
  timed: <T>(stage: string, f: () => Promise<T>) => Promise<T> = (_s, f) => f(),
): Promise<{ chunked: ChunkedSource[]; chunks: Chunk[]; documents: DocumentUnit[] }> {
  const registry = opts.registry ?? SOURCES;
  const wanted = opts.sources ?? registry.map((s) => s.id);
  const entries = wanted.map((id) => {
    const e = registry.find((s) => s.id === id);
    if (!e) throw new CorpusBuildError(`Unknown source id "${id}". Registered: ${registry.map((s) => s.id).join(', ')}.`);
    return e;
  });
  const resolved = await timed('resolve+verify sources', () => Promise.all(entries.map((e) => resolveSource(e, opts))));
  const chunked = await timed('load+chunk+enrich', async () => {
    const out: ChunkedSource[] = [];
    for (const r of resolved) out.push(await chunkSource(r));
    return out;
  });
  const chunks = chunked.flatMap((c) => c.chunks);
  const ids = new Set<string>();
  for (const c of chunks) {
    if (ids.has(c.id)) throw new CorpusBuildError(`Duplicate chunk id ${c.id}: two sources or units produce the same id.`);
    ids.add(c.id);
  }
  // documents as units: every chunk gets the logical document it belongs to
  const documents = splitDocuments(
    chunks,
    chunked.map(({ resolved: { entry } }) => ({ id: entry.id, title: entry.title, edition: entry.edition, jurisdiction: entry.jurisdiction })),
  );
  const docOf = new Map(documents.flatMap((d) => d.chunkIds.map((id) => [id, d.id] as const)));
  for (const c of chunks) c.documentId = docOf.get(c.id)!;
  return { chunked, chunks, documents };
}

export async function buildIndex(opts: BuildOptions): Promise<BuildReport> {
  const progress = opts.progress ?? silentProgress;
  const repoRoot = resolve(opts.repoRoot ?? '.');
  const outDir = resolve(opts.outDir ?? 'static-index');
  const registry = opts.registry ?? SOURCES;
  const wanted = opts.sources ?? registry.map((s) => s.id);
  const timings: StageTiming[] = [];
  const timed = async <T>(stage: string, f: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const r = await f();
    timings.push({ stage, ms: performance.now() - t0 });
    return r;
  };

  const { chunked, chunks, documents } = await chunkSources({ ...opts, registry, sources: wanted }, timed);

  const dim = opts.embedder.dimension;
  const vectors = await timed('embed retrieval strings', () =>
    embedAll(
      opts.embedder,
      chunks.map((c) => c.retrieval),
      'embed retrieval strings',
      progress,
    ),
  );
  const summaryVectors = await timed('embed summaries', () =>
    embedAll(
      opts.embedder,
      chunks.map((c) => c.summary || c.title),
      'embed summaries',
      progress,
    ),
  );
  const windows = chunks.flatMap((c, row) =>
    passageWindows(c.text, c.kind).map((w) => ({ row, ...w, text: `${c.title}. ${collapseWhitespace(c.text.slice(w.start, w.end))}` })),
  );
  const windowVectors = await timed('embed passage windows', () =>
    embedAll(
      opts.embedder,
      windows.map((w) => w.text),
      'embed passage windows',
      progress,
    ),
  );
  const source: QuestionSource = opts.questions ?? (opts.synthetic ? 'synthetic' : 'none');
  const indexed = questionsToIndex(source, chunks, opts.syntheticDir);
  const questionList = chunks.flatMap((c, row) => (indexed.byChunk.get(c.id) ?? []).map((text) => ({ row, text })));
  const questionVectors = await timed('embed indexed questions', () =>
    embedAll(
      opts.embedder,
      questionList.map((q) => q.text),
      'embed indexed questions',
      progress,
    ),
  );
  // the quotable units (core/text/units.ts), embedded as a reader quotes them: the unit ranker reads these vectors
  const unitList = chunks.flatMap((c, row) =>
    quotableUnits(segmentUnits(c, gridForChunk(c))).map((u) => ({ row, n: u.n, len: u.text.length, text: unitQuote(u) })),
  );
  const unitVectors = await timed('embed quotable units', () =>
    embedAll(
      opts.embedder,
      unitList.map((u) => u.text),
      'embed quotable units',
      progress,
    ),
  );
  const nodeTexts = documents.flatMap((d) => [documentNodeText(d), ...d.sections.map((s) => sectionNodeText(d, s))]);
  const documentVectors = await timed('embed summary index', () => embedAll(opts.embedder, nodeTexts, 'embed summary index', progress));
  // identifiers in the BM25 field as the documents mostly print them ("OSO #8" → "OSO #08"), the forms the engine rewrites a question into
  const bm25Chunks = withIdentifiersAsPrinted(chunks);
  const bm25Json = await timed('BM25 index', async () => JSON.stringify(buildBm25(bm25Chunks, (id) => indexed.byChunk.get(id) ?? [])));

  const encoder = new TextEncoder();
  const files: Record<string, Uint8Array> = {
    [ARTIFACTS.chunks]: encoder.encode(JSON.stringify(chunks)),
    [ARTIFACTS.vectors]: packVectors(vectors, dim),
    [ARTIFACTS.summaryVectors]: packVectors(summaryVectors, dim),
    [ARTIFACTS.bm25]: encoder.encode(bm25Json),
    [ARTIFACTS.windows]: encoder.encode(JSON.stringify({ row: windows.map((w) => w.row), start: windows.map((w) => w.start), end: windows.map((w) => w.end) })),
    [ARTIFACTS.windowVectors]: quantizeInt8(windowVectors, dim),
    [ARTIFACTS.questions]: encoder.encode(JSON.stringify({ row: questionList.map((q) => q.row) })),
    [ARTIFACTS.questionVectors]: quantizeInt8(questionVectors, dim),
    [ARTIFACTS.documents]: encoder.encode(JSON.stringify({ documents })),
    [ARTIFACTS.documentVectors]: packVectors(documentVectors, dim),
    [ARTIFACTS.units]: encoder.encode(JSON.stringify({ row: unitList.map((u) => u.row), n: unitList.map((u) => u.n), len: unitList.map((u) => u.len) })),
    [ARTIFACTS.unitVectors]: quantizeInt8(unitVectors, dim),
  };
  const modelBytes = new Uint8Array(await readFile(opts.modelFile));
  const sources: ManifestSource[] = chunked.map(({ resolved: r, chunks: cs }) => ({
    id: r.entry.id,
    title: r.entry.title,
    edition: r.entry.edition,
    jurisdiction: r.entry.jurisdiction,
    sha256: r.sha256,
    via: r.via,
    verbatim: r.entry.verbatim,
    chunkCount: cs.length,
    reuseNotice: r.entry.reuseNotice,
    editionNote: r.entry.editionNote,
  }));
  const manifest: IndexManifest = {
    formatVersion: INDEX_FORMAT_VERSION,
    builtAt: new Date().toISOString(),
    builderFingerprint: builderFingerprint(repoRoot),
    sources,
    model: { id: opts.embedder.modelId, dtype: opts.modelDtype, sha256: sha256(modelBytes), pooling: 'mean', normalized: true },
    chunkCount: chunks.length,
    dimension: dim,
    endianness: 'little',
    artifacts: Object.fromEntries(Object.entries(files).map(([n, b]) => [n, { sha256: sha256(b), bytes: b.byteLength }])),
    parameters: {
      chunking: DEFAULT_CHUNKING,
      windows: DEFAULT_WINDOWS,
      windowQuantization: `int8 × ${WINDOW_SCALE}`,
      units: { count: unitList.length, text: 'header: unit text (core/text/units.ts unitQuote)', quantization: `int8 × ${WINDOW_SCALE}` },
      keywordsPerChunk: 8,
      retrievalString: 'title title. text',
      summaryIndex: {
        documents: documents.length,
        sections: nodeTexts.length - documents.length,
        budget: DEFAULT_SUMMARY_BUDGET,
        nodeText: 'title. summary (sections: document title › section path. summary)',
      },
      indexedQuestions: source === 'none' ? null : { source, ...indexed.provenance, questions: questionList.length, passages: indexed.byChunk.size },
    },
  };

  await timed('write', async () => {
    const tmp = `${outDir}.tmp-${process.pid}`;
    await rm(tmp, { recursive: true, force: true });
    await mkdir(tmp, { recursive: true });
    try {
      for (const [name, bytes] of Object.entries(files)) await writeFile(join(tmp, name), bytes);
      await writeFile(join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2));
      await writeFile(join(tmp, 'README.md'), '# static-index/\n\nGenerated by `npm run index`; never committed.\n');
      const old = `${outDir}.old-${process.pid}`;
      await mkdir(dirname(outDir), { recursive: true });
      // vector sets of other embedders (npm run index:vectors) are kept; each records the index it was
      // built for, so a set that no longer matches is refused with the command that rebuilds it
      for (const keep of ['vectors', VECTOR_SETS_FILE]) {
        if (existsSync(join(outDir, keep))) await cp(join(outDir, keep), join(tmp, keep), { recursive: true });
      }
      if (existsSync(outDir)) await rename(outDir, old);
      await rename(tmp, outDir);
      await rm(old, { recursive: true, force: true });
    } catch (e) {
      await rm(tmp, { recursive: true, force: true });
      throw e;
    }
  });

  return {
    outDir,
    chunkCount: chunks.length,
    perSource: chunked.map((c) => ({ id: c.resolved.entry.id, chunks: c.chunks.length, via: c.resolved.via, warnings: c.warnings })),
    timings,
    artifacts: Object.fromEntries(Object.entries(files).map(([n, b]) => [n, b.byteLength])),
    warnings: chunked.flatMap((c) => c.warnings),
  };
}

export async function embedAll(embedder: Embedder, texts: string[], stage: string, progress: Progress): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  const step = 32;
  progress(stage, 0, texts.length);
  for (let i = 0; i < texts.length; i += step) {
    out.push(...(await embedder.embed(texts.slice(i, i + step))));
    progress(stage, out.length, texts.length);
  }
  return out;
}

/** The question texts indexed with each passage, and where they come from. */
function questionsToIndex(
  source: QuestionSource,
  chunks: Chunk[],
  syntheticDir: string | undefined,
): { byChunk: Map<string, string[]>; provenance: Record<string, unknown> } {
  if (source === 'none') return { byChunk: new Map(), provenance: {} };
  if (source === 'synthetic') {
    const synth = questionsByChunk(chunks, syntheticDir);
    return {
      byChunk: new Map([...synth.byChunk].map(([id, qs]) => [id, qs.map((q) => q.q)])),
      provenance: {
        file: 'corpus-build/data/synthetic-questions.jsonl',
        sha256: readMeta(syntheticDir)?.files['synthetic-questions.jsonl']?.sha256 ?? null,
        stale: synth.stale,
        missing: synth.missing,
      },
    };
  }
  const bank = readBank(syntheticDir ?? 'corpus-build/data');
  const check = checkBank(bank, chunks);
  const half = (id: string) => (fnv1a(id) % 2 === 0 ? 'a' : 'b');
  const keep = check.usable.filter((q) => source === 'bank' || (q.split === 'train' && (source === 'bank-train' || half(q.id) === source.slice(-1))));
  const byChunk = new Map<string, string[]>();
  for (const q of keep) byChunk.set(q.chunk, [...(byChunk.get(q.chunk) ?? []), q.q]);
  return {
    byChunk,
    provenance: {
      file: 'corpus-build/data/question-bank.jsonl',
      sha256: readBankSha(syntheticDir ?? 'corpus-build/data'),
      lost: check.lost.length,
      moved: check.moved.length,
    },
  };
}
