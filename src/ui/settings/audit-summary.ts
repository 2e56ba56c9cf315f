/**
 * The audit export's readable companion: one Markdown file listing each record (when, what was
 * asked, how it was answered, from which passages, with which model and index), beside the full
 * JSON that reproduces it. Times are given with their time zone.
 */
import type { AuditRecord } from '../../core/ask/audit-record';
import { formatTime } from '../format';

type SummaryRecord = Pick<
  AuditRecord,
  | 'id'
  | 'time'
  | 'question'
  | 'answer'
  | 'citedSources'
  | 'modelId'
  | 'mode'
  | 'indexManifestSha'
  | 'evidence'
  | 'grounding'
  | 'route'
  | 'calculator'
  | 'kind'
  | 'requirements'
>;

/** Longest answer excerpt in the summary (the JSON holds the whole answer). */
export const SUMMARY_ANSWER_CHARS = 600;

const KIND: Record<string, string> = { ask: 'Question', assess: 'Assessment', requirements: 'Requirements draft' };

/** One line of Markdown text: no line breaks, no table pipes, no leading heading or list marks. */
const inline = (s: string): string => s.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();

function quote(text: string): string {
  const t = text.trim();
  const cut = t.length > SUMMARY_ANSWER_CHARS ? `${t.slice(0, SUMMARY_ANSWER_CHARS).trimEnd()} … (cut; the JSON export holds the whole answer)` : t;
  return cut
    .split(/\r?\n/)
    .map((l) => `> ${l}`.trimEnd())
    .join('\n');
}

export function auditMarkdown(
  records: readonly SummaryRecord[],
  opts: { exportedAt: string; timeZone?: string; damaged?: number } = { exportedAt: new Date().toISOString() },
): string {
  const at = (iso: string) => formatTime(iso, opts.timeZone);
  const out: string[] = [
    '# SkyCite audit log — summary',
    '',
    `Exported ${at(opts.exportedAt)}. ${records.length} record${records.length === 1 ? '' : 's'}, newest first${opts.damaged ? `; ${opts.damaged} damaged record${opts.damaged === 1 ? '' : 's'} left out (unreadable)` : ''}.`,
    'Decision support, not an authority: each answer is reproducible from its record in the JSON export (configuration, passages and scores, context, model and parameters).',
    '',
  ];
  records.forEach((r, i) => {
    out.push(`## ${i + 1}. ${KIND[r.kind ?? 'ask'] ?? 'Record'} — ${at(r.time)}`, '');
    out.push(`- **Question:** ${r.question ? inline(r.question) : '(kept out of the log)'}`);
    out.push(`- **Answer mode:** ${r.mode}${r.modelId ? `, model ${r.modelId}` : ', no language model (evidence only)'}`);
    if (r.route) out.push(`- **Route:** ${r.route.path} (confidence ${r.route.confidence.toFixed(2)})`);
    if (r.calculator?.items.length) out.push(`- **Calculator:** ${r.calculator.items.map((c) => `${inline(c.label)} ${c.value ?? c.status}`).join('; ')}`);
    if (r.requirements) out.push(`- **Candidates:** ${r.requirements.draft.requirements.length}`);
    out.push(`- **Cited:** ${r.citedSources.length ? r.citedSources.join(', ') : 'none'}`);
    out.push(`- **Passages retrieved:** ${r.evidence.length}`);
    if (r.grounding) out.push(`- **Source check:** ${r.grounding.verdict} — ${inline(r.grounding.verdictReason)}`);
    out.push(`- **Index:** \`${r.indexManifestSha}\` · record \`${r.id}\``, '');
    if (r.answer.trim()) out.push(quote(r.answer), '');
  });
  return `${out.join('\n').trimEnd()}\n`;
}
