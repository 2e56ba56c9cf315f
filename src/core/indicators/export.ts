/**
 * Export of an assessment (UC-CLS-01 step 6): a JSON document (schema version, inputs, results,
 * sources, coherence flags, disclaimer) and a printable Markdown summary, both as strings: the
 * caller writes them (the Assess view offers the JSON as a download, src/ui/assess/AssessView.svelte).
 */
import { SEVERITY_LABELS } from './coherence.js';
import { EASA_DOC_ID, formatTraceStep } from '../sora/types.js';
import { INDICATOR_CATALOG, formatIndicatorValue } from './catalog.js';
import { DENSITY_DESCRIPTORS_TABLE } from '../sora/tables/density-descriptors-table.js';
import { FIELD_SPECS, POPULATION_BAND_LABELS, valueLabel } from './inputs.js';
import type { AssessmentResult, IndicatorResult } from './run.js';
import type { IndicatorSource } from './sources.js';

export const EXPORT_SCHEMA = 'skycite.indicators' as const;
export const EXPORT_SCHEMA_VERSION = 1 as const;

export const DISCLAIMER =
  'Indicative and preliminary decision support, not a legal determination, approval or final classification. ' +
  "Values read from the regulation's tables cite the table cells; model-proposed orientations are majority votes over the retrieved passages and may be wrong. " +
  'Responsibility for the assessment remains with the UAS operator and the competent authority. ' +
  'The source texts are amendment documents and restatements; the consolidated regulation is the reference for legal purposes.';

export interface DocumentInfo {
  readonly title: string;
  readonly edition: string;
  readonly notice: string;
}

/** Documents the calculator and the index cite (title, edition, reuse notice). */
export const KNOWN_DOCUMENTS: Readonly<Record<string, DocumentInfo>> = {
  [EASA_DOC_ID]: {
    title: 'EASA, AMC & GM to Regulation (EU) 2019/947 — Annex to ED Decision 2025/018/R',
    edition: 'Issue 1, Amendment 3 (renamed Amendment 4 by the corrigendum of 12 December 2025); SORA 2.5',
    notice: '© European Union Aviation Safety Agency. Reproduced with acknowledgement of the source, as EASA permits.',
  },
  'skysafe-sora-curated': {
    title: 'SKYSAFE curated SORA chunks (reference implementation corpus)',
    edition: 'SORA 2.0-era AMC1 Article 11 and Annexes B–E; PDRA-S01, S02, G01, G02, G03 (narrative restatements)',
    notice: 'Curated by the SKYSAFE project (ZHAW); restates EASA material, © EASA for the underlying text.',
  },
};

export interface ExportDocument {
  readonly schema: typeof EXPORT_SCHEMA;
  readonly schemaVersion: typeof EXPORT_SCHEMA_VERSION;
  readonly generatedAt: string;
  readonly disclaimer: string;
  readonly inputs: AssessmentResult['input'];
  readonly model: AssessmentResult['model'];
  readonly results: Record<string, ReturnType<typeof exportResult>>;
  readonly coherence: AssessmentResult['coherence'];
  /** Every chunk cited by any indicator, deduplicated. */
  readonly sources: readonly IndicatorSource[];
  readonly documents: Readonly<Record<string, DocumentInfo | { readonly title: string }>>;
}

function exportResult(r: IndicatorResult) {
  return {
    name: r.name,
    label: r.label,
    value: r.value,
    valueLabel: r.valueLabel,
    explanation: r.explanation,
    confidence: r.confidence,
    conditional: r.conditional,
    conditionalReasons: r.conditionalReasons,
    consistency: r.consistency,
    votes: r.votes,
    runs: r.runs,
    sources: r.sources.map((s) => s.id),
    trace: r.trace,
    calculation: r.calculation,
    query: r.query,
    missing: r.missing,
    clarification: r.clarification,
    notes: r.notes,
    error: r.error,
  };
}

/** The JSON export document. */
export function toExportDocument(result: AssessmentResult, documents: Readonly<Record<string, DocumentInfo>> = KNOWN_DOCUMENTS): ExportDocument {
  const ordered = result.order.map((n) => result.results[n]).filter((r): r is IndicatorResult => r !== undefined);
  const sources = new Map<string, IndicatorSource>();
  for (const r of ordered) for (const s of r.sources) if (!sources.has(s.id)) sources.set(s.id, s);
  const docIds = new Set<string>([...[...sources.values()].map((s) => s.docId), ...ordered.flatMap((r) => r.trace.map((t) => t.docId))]);
  return {
    schema: EXPORT_SCHEMA,
    schemaVersion: EXPORT_SCHEMA_VERSION,
    generatedAt: result.generatedAt,
    disclaimer: DISCLAIMER,
    inputs: result.input,
    model: result.model,
    results: Object.fromEntries(ordered.map((r) => [r.name, exportResult(r)])),
    coherence: result.coherence,
    sources: [...sources.values()],
    documents: Object.fromEntries([...docIds].sort().map((id) => [id, documents[id] ?? { title: id }])),
  };
}

export function serializeAssessment(result: AssessmentResult, documents?: Readonly<Record<string, DocumentInfo>>): string {
  return `${JSON.stringify(toExportDocument(result, documents), null, 2)}\n`;
}

const CONFIDENCE_TEXT: Readonly<Record<IndicatorResult['confidence'], string>> = {
  calculated: 'calculated from the tables',
  'model-majority': 'model majority vote',
  'evidence-only': 'evidence only, no value inferred',
  low: 'low confidence',
};

/** An ISO time as people read it, in UTC ("2026-11-25 20:05 UTC"); the app passes the browser's local form with its zone instead. */
export function readableUtc(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;
}

/** Printable Markdown summary (also readable as plain text); `time` writes the generation time (default {@link readableUtc}). */
export function renderSummary(
  result: AssessmentResult,
  documents: Readonly<Record<string, DocumentInfo>> = KNOWN_DOCUMENTS,
  time: (iso: string) => string = readableUtc,
): string {
  const doc = toExportDocument(result, documents);
  const out: string[] = [
    '# SkyCite — initial operation indicators',
    '',
    `Generated ${time(result.generatedAt)}${result.model ? ` · model ${result.model.id}, ${result.model.runs} runs per indicator` : ' · no language model (calculator and evidence only)'}`,
    '',
    `> ${DISCLAIMER}`,
    '',
    '## Operation inputs',
    '',
  ];
  for (const f of FIELD_SPECS) {
    const v = valueLabel(f.field, result.input);
    if (v !== null) out.push(`- ${f.label}: ${v}`);
    else if (f.field === 'population_band' && result.calculator.ground?.band) {
      out.push(
        `- ${f.label}: ${POPULATION_BAND_LABELS[result.calculator.ground.band]} (not given; read from the ground environment with Table 2, p. ${DENSITY_DESCRIPTORS_TABLE.source.page})`,
      );
    }
  }
  out.push('', '## Indicators', '', '| Indicator | Value | Confidence | Consistency |', '|---|---|---|---|');
  for (const n of result.order) {
    const r = result.results[n];
    if (!r) continue;
    const value = `${r.valueLabel}${r.conditional ? ' (conditional)' : ''}`;
    out.push(
      `| ${r.label} | ${value} | ${CONFIDENCE_TEXT[r.confidence]}${r.error ? ' — model error' : ''} | ${r.consistency === null ? '—' : `${Math.round(r.consistency * 100)} %`} |`,
    );
  }
  for (const n of result.order) {
    const r = result.results[n];
    if (!r) continue;
    out.push('', `### ${r.label}: ${formatIndicatorValue(n, r.value)}`, '', r.explanation.trim());
    if (r.conditionalReasons.length) out.push('', ...r.conditionalReasons.map((c) => `- Condition: ${c}`));
    if (r.calculation && r.calculation !== r.explanation) out.push('', `Computed: ${r.calculation}`);
    if (r.trace.length) out.push('', 'Table cells:', ...r.trace.map((t) => `- ${formatTraceStep(t)}`));
    if (r.clarification) out.push('', `Missing information: ${r.clarification}`);
    if (r.error) out.push('', `Model error (${r.error.kind}): ${r.error.message}`);
    if (r.sources.length) out.push('', `Sources: ${r.sources.map((s) => `[${s.id}] ${s.title}, ${s.pages}`).join('; ')}`);
    if (INDICATOR_CATALOG[n].kind === 'model' && r.confidence === 'model-majority')
      out.push('', '_Model-proposed orientation: check it against the cited passages._');
  }
  out.push('', '## Coherence checks', '');
  if (result.coherence.length === 0) out.push('No contradiction between the indicators was detected.');
  for (const c of result.coherence) out.push(`- **${SEVERITY_LABELS[c.severity]}** (${c.id}): ${c.message}`);
  out.push('', '## Source documents', '');
  for (const [id, d] of Object.entries(doc.documents)) out.push(`- ${id}: ${d.title}${'edition' in d ? `, ${d.edition}. ${d.notice}` : ''}`);
  return `${out.join('\n')}\n`;
}
