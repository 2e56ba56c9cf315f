/** Small display formatters. */
import type { Chunk } from '../core/model/chunk';

/** The label every curated SORA 2.0 restatement carries wherever its passage is shown. */
export const CURATED_RESTATEMENT_LABEL = 'SORA 2.0 restatement (curated)';

/**
 * {@link CURATED_RESTATEMENT_LABEL} for a passage of the curated SORA 2.0 set (a pre-chunked item,
 * kind `curated`, whose edition names SORA 2.0: a restatement, not the regulation's wording), else null.
 */
export function restatementLabel(chunk: Pick<Chunk, 'kind' | 'edition'>): string | null {
  return chunk.kind === 'curated' && /\bSORA\s*V?2\.0\b/i.test(chunk.edition) ? CURATED_RESTATEMENT_LABEL : null;
}

/** "1.2 GB", "340 MB", "12 KB", "unknown". */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return 'unknown';
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${Math.round(bytes / 1024 ** 2)} MB`;
  return `${Math.max(0, Math.round(bytes / 1024))} KB`;
}

/** "570 ms", "4.1 s", "unknown". */
/** Percent of the current file downloaded, or null when its size is not known (the offer and Settings' progress bars). */
export function downloadPercent(progress: { loaded: number; total: number } | null): number | null {
  if (!progress || !(progress.total > 0)) return null;
  return Math.min(100, Math.round((progress.loaded / progress.total) * 100));
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return 'unknown';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Date and time of an ISO timestamp in the browser's locale, with the time zone it is in ("25 Nov 2026, 20:05 CET"). */
export function formatTime(iso: string, timeZone?: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZoneName: 'short',
    ...(timeZone ? { timeZone } : {}),
  });
}

/** A date alone, in the browser's locale (a build date: no time, so no time zone). */
export function formatDay(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

/** Offer text as a file download; only ever called from a user's click. */
export function downloadText(filename: string, content: string | Blob, type = 'application/json'): void {
  const blob = typeof content === 'string' ? new Blob([content], { type }) : content;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
