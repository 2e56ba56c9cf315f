/**
 * The self-hosted model catalog: `<base>/manifest.json` (written by `npm run
 * models:prepare`), fetched from the base URL — the app's own origin by default — and
 * kept in Cache Storage so the list is there offline and after an import. An import
 * adds the manifest entries of the imported model to the kept copy.
 */
import type { CacheStorageLike } from './cache.js';
import { browserCaches } from './cache.js';
import { MODELS_MANIFEST_FORMAT, modelsBaseUrl, ModelsManifestError, parseModelsManifest, type CuratedModel } from './models.js';

export const CATALOG_CACHE = 'skycite/llm-catalog';

export interface Catalog {
  /** Self-hosted models (fetched or kept), largest first. */
  models: CuratedModel[];
  /** The base URL the catalog belongs to. */
  baseUrl: string;
  /** 'served' (fetched now), 'kept' (from the copy: offline or not served), 'none'. */
  origin: 'served' | 'kept' | 'none';
  /** Why the served manifest could not be used (shown in Settings), or null. */
  note: string | null;
}

export interface CatalogDeps {
  caches?: CacheStorageLike;
  fetchImpl?: typeof fetch;
  locationHref?: string;
}

const manifestUrl = (base: string): string => `${base}/manifest.json`;

async function readKept(caches: CacheStorageLike, base: string): Promise<unknown[] | null> {
  try {
    const res = await (await caches.open(CATALOG_CACHE)).match(manifestUrl(base));
    if (!res) return null;
    const j = (await res.json()) as { models?: unknown[] };
    return Array.isArray(j.models) ? j.models : null;
  } catch {
    return null;
  }
}

async function writeKept(caches: CacheStorageLike, base: string, models: unknown[]): Promise<void> {
  const body = JSON.stringify({ format: MODELS_MANIFEST_FORMAT, models });
  await (await caches.open(CATALOG_CACHE)).put(manifestUrl(base), new Response(body, { headers: { 'Content-Type': 'application/json' } }));
}

const idOf = (e: unknown): string => String((e as { model_id?: unknown })?.model_id ?? '');

function parseSafe(entries: unknown[]): { models: CuratedModel[]; error: string | null } {
  try {
    return { models: parseModelsManifest({ format: MODELS_MANIFEST_FORMAT, models: entries }), error: null };
  } catch (e) {
    return { models: [], error: (e as Error).message };
  }
}

const bySize = (a: CuratedModel, b: CuratedModel) => b.paramsB - a.paramsB || a.id.localeCompare(b.id);

/** Settings' words when the server holds no model manifest. */
export const NO_SELF_HOSTED_MODEL = 'No self-hosted model on this server.';

/**
 * The served manifest, or null when what came back is not one: not JSON (an HTML page served for
 * every path), or JSON without a model list. A JSON manifest that is malformed still throws (its
 * message is shown: the operator deployed a broken file).
 */
async function servedManifest(res: Response): Promise<{ models?: unknown[] } | null> {
  const type = res.headers.get('content-type') ?? '';
  if (/text\/html/i.test(type)) return null;
  const text = await res.text();
  if (/^\s*</.test(text)) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    if (/json/i.test(type)) throw new ModelsManifestError('the manifest is not valid JSON');
    return null;
  }
  return json !== null && typeof json === 'object' ? (json as { models?: unknown[] }) : null;
}

/** Load the catalog for the base URL setting (null = the app's own llm/ folder). Never throws. */
export async function loadCatalog(setting: string | null | undefined, deps: CatalogDeps = {}): Promise<Catalog> {
  let base: string;
  try {
    base = modelsBaseUrl(setting, deps.locationHref);
  } catch (e) {
    return { models: [], baseUrl: '', origin: 'none', note: (e as Error).message };
  }
  let caches: CacheStorageLike | null = null;
  try {
    caches = deps.caches ?? browserCaches();
  } catch {
    caches = null;
  }
  const kept = caches ? await readKept(caches, base) : null;
  let note: string | null = null;
  const fetchImpl = deps.fetchImpl ?? globalThis.fetch?.bind(globalThis);
  try {
    const res = await fetchImpl(manifestUrl(base), { cache: 'no-cache' });
    // a server without the file often answers with its app page (HTTP 200, HTML): no self-hosted
    // model there, which is no error to show
    const served = res.ok ? await servedManifest(res) : null;
    if (served) {
      const parsed = parseModelsManifest(served);
      const servedEntries = served.models ?? [];
      const extra = (kept ?? []).filter((e) => !servedEntries.some((s) => idOf(s) === idOf(e)));
      if (caches) await writeKept(caches, base, [...servedEntries, ...extra]).catch(() => undefined);
      return { models: [...parsed, ...parseSafe(extra).models].sort(bySize), baseUrl: base, origin: 'served', note: null };
    }
    note = res.ok || res.status === 404 ? null : `The model manifest at ${manifestUrl(base)} answered HTTP ${res.status}.`;
  } catch (e) {
    note = `${manifestUrl(base)}: ${(e as Error).message}`;
  }
  if (kept) {
    const p = parseSafe(kept);
    return { models: p.models.sort(bySize), baseUrl: base, origin: 'kept', note: p.error ?? note };
  }
  return { models: [], baseUrl: base, origin: 'none', note };
}

/** Add a manifest's entries (an import) to the kept catalog of the base URL. Returns the models it holds. */
export async function rememberManifest(setting: string | null | undefined, manifest: unknown, deps: CatalogDeps = {}): Promise<CuratedModel[]> {
  const models = parseModelsManifest(manifest);
  const base = modelsBaseUrl(setting, deps.locationHref);
  const caches = deps.caches ?? browserCaches();
  const kept = (await readKept(caches, base)) ?? [];
  const entries = (manifest as { models: unknown[] }).models;
  await writeKept(caches, base, [...entries, ...kept.filter((e) => !entries.some((n) => idOf(n) === idOf(e)))]);
  return models;
}
