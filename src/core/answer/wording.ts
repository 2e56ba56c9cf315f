/**
 * Approval-like wording check. The prompts forbid telling the user that their
 * operation is approved, compliant or authorised (SKYSAFE A.2.3: "Do not claim
 * approval, certification, validation, or authority decisions"); this check
 * finds such wording in a generated answer so it can be flagged in the UI and
 * the audit record. It targets statements about the user's operation, not
 * quoted requirements ("shall be approved by the competent authority" is a
 * fact from the sources and is not flagged).
 */

const PATTERNS: RegExp[] = [
  /\byou (?:are|will be|would be|have been|are now) (?:authori[sz]ed|approved|permitted|allowed|cleared|certified|compliant)\b[^.\n]*/gi,
  /\byour (?:\w+ ){0,2}(?:operation|flight|drone|uas|mission|conops|application|aircraft|setup|plan)s? (?:is|are|will be|would be|has been|have been) (?:fully )?(?:approved|compliant|authori[sz]ed|permitted|certified|validated|accepted|legal)\b[^.\n]*/gi,
  /\b(?:this|the proposed|the described) (?:operation|flight|mission) (?:is|will be|would be) (?:fully )?(?:approved|compliant|authori[sz]ed|permitted|certified|validated|legal)\b[^.\n]*/gi,
  /\bi (?:hereby )?(?:approve|certify|authori[sz]e|validate)\b[^.\n]*/gi,
];

/** Approval-like phrases found in `text`, in order of appearance. */
export function findApprovalWording(text: string): string[] {
  const hits: { at: number; text: string }[] = [];
  for (const re of PATTERNS) for (const m of text.matchAll(re)) hits.push({ at: m.index, text: m[0].trim() });
  return hits.sort((a, b) => a.at - b.at).map((h) => h.text);
}
