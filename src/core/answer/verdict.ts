/**
 * What the app may tell a reader about a generated text it checked. "Grounded" is shown only while the
 * check's precision of "supported", measured on strictly hand-labelled pairs, is at least
 * `TRUST_PRECISION` (docs/labelling-guide.md, `npm run label:claims`); below it, the text is shown as
 * not verified and the reader is pointed at the quotations. Quotations themselves are the documents'
 * words: they are labelled as quoted, never as checked.
 */
import type { GroundingReport } from './grounding.js';
import JUDGE from './judge-agreement.json';

/** The precision of "supported" on strict labels below which no "Grounded" badge is shown (issue: ≥ 0.90). */
export const TRUST_PRECISION = 0.9;

export interface JudgeAgreement {
  /** Precision and recall of the check's "supported" on the strict hand labels, and how many pairs. */
  strictPrecision: number;
  strictRecall: number;
  pairs: number;
  /** A strict reader's labels of the model's leads (sentences above quotations): how many, how many supported. */
  leads?: { pairs: number; supported: number };
  /** Where the figures come from (command, label file and its SHA-256, date). */
  provenance: Record<string, unknown>;
}

export const JUDGE_AGREEMENT = JUDGE as JudgeAgreement;

export type ShownVerdict = 'Grounded' | 'Not verified' | 'Unsupported';

/** The verdict a reader sees: the check's, except that "Grounded" needs a judge the labels trust. */
export function shownVerdict(
  report: Pick<GroundingReport, 'verdict'> | null,
  judge: Pick<JudgeAgreement, 'strictPrecision'> = JUDGE_AGREEMENT,
): ShownVerdict | null {
  if (!report) return null;
  if (report.verdict === 'Grounded') return judge.strictPrecision >= TRUST_PRECISION ? 'Grounded' : 'Not verified';
  return report.verdict === 'Unsupported' ? 'Unsupported' : 'Not verified';
}

/** The sentence under a verdict a reader sees. */
export function verdictLine(v: ShownVerdict, judge: Pick<JudgeAgreement, 'strictPrecision'> = JUDGE_AGREEMENT): string {
  switch (v) {
    case 'Grounded':
      return 'Every sentence is supported by the passages it cites.';
    case 'Not verified':
      return `The automatic source check agrees with a careful reader on ${Math.round(judge.strictPrecision * 100)} % of the sentences it accepts, too few to call a text verified: read the quoted passages.`;
    case 'Unsupported':
      return 'Some of this text is not supported by the passages it cites (marked); rely on the quoted passages.';
  }
}

/** The line on a lead the app cannot vouch for: what a strict reader made of such leads, when measured. */
export function leadWarning(judge: Pick<JudgeAgreement, 'leads'> = JUDGE_AGREEMENT): string {
  const l = judge.leads;
  if (!l || !l.pairs) return 'not verified, read the quotes';
  return `not verified: a strict reader accepted ${l.supported} of ${l.pairs} such sentences as stated by the quotes they cite; read the quotes`;
}
