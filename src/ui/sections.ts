/**
 * Split a generated answer into its labelled sections (Answer · Facts from the sources ·
 * Interpretation · Missing information) so the view can render each under its own heading.
 * A line that is a label ("## Answer", "**Answer:**", "Answer — text") starts a section;
 * text before the first label is kept as an unlabelled section.
 */
import { matchSectionLabel } from '../core/answer/grounding';
import type { SectionLabel } from '../core/answer/prompts';

export interface AnswerSection {
  label: SectionLabel | null;
  body: string;
}

export function splitSections(text: string): AnswerSection[] {
  const out: AnswerSection[] = [];
  let current: AnswerSection = { label: null, body: '' };
  const lines = text.split(/\r?\n/);
  for (const line of lines) {
    const m = matchSectionLabel(line);
    if (m) {
      if (current.label !== null || current.body.trim()) out.push(current);
      current = { label: m.label, body: m.rest ? `${m.rest}\n` : '' };
    } else {
      current.body += `${line}\n`;
    }
  }
  if (current.label !== null || current.body.trim()) out.push(current);
  return out.map((s) => ({ label: s.label, body: s.body.replace(/\s+$/, '') }));
}

/** A stable id fragment for a section label. */
export const sectionSlug = (label: string): string => label.toLowerCase().replace(/[^a-z0-9]+/g, '-');
