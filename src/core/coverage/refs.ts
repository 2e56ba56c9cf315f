/**
 * References to legal instruments and their points, as the corpus writes them.
 *
 * The same scanner runs at build time over every chunk (to find what the documents
 * reference) and at question time (to find what a question names). Each reference
 * becomes a normalised key; an instrument of the coverage data claims keys by
 * prefix (the longest prefix wins), so `reg:2019/945:art:40` goes to an entry for
 * Article 40 of Regulation (EU) 2019/945 when there is one, else to the Regulation.
 *
 * Notation followed (as printed in the AMC & GM and the curated restatements):
 *   "Article 14 of Implementing Regulation (EU) 2019/947", "Article 35 of that Regulation",
 *   "Article 14 of the UAS Regulation", bare "Article 11" (the AMC's own Regulation),
 *   "Regulation (EU) No 748/2012", "Delegated Regulation (EU) 2024/1107",
 *   "Directive 2014/53/EU", "UAS.SPEC.030(3)(e)", "UAS.STS-02.020(3)",
 *   "Part 17 of the Annex to Regulation (EU) 2019/945", "class C6", "ICAO Annex 2",
 *   "SERA.3201", "ORO.FC.115", "14 CFR 91.113", "EN 4709-002", "ED-280", "DO-160G",
 *   "SAE ARP 4754A", "ED Decision 2022/002/R", "JARUS", and named concepts whose rules
 *   live elsewhere ("‘open’ category", "standard scenario", "U-space", "geographical zone",
 *   "light UAS operator certificate", "registration", "national regulations", "insurance", ...).
 *
 * Pure TypeScript: no DOM, no Node built-ins.
 */

export interface Reference {
  /** Normalised key, e.g. "reg:2019/947:art:14", "uas:SPEC.060", "dir:2014/53". */
  key: string;
  /** The text as matched (whitespace collapsed). */
  text: string;
  /** Offset in the collapsed text. */
  index: number;
  /** A subject named in words ("geographical zone", "registration number") rather than a citation or a proper name. */
  subject?: true;
}

/** The Regulation the AMC & GM (and so a bare "Article N") belong to. */
export const HOME_REGULATION = '2019/947';

const collapse = (s: string): string => s.replace(/\s+/g, ' ');

/**
 * "2019/94512" (footnote 12 glued to 2019/945): the number of a post-2015 act has at most
 * four digits and the acts the corpus cites have three or four; keep three when five or more
 * digits were glued. Old-style "No 748/201211": the second part is a four-digit year.
 */
function regNumber(a: string, b: string, oldStyle: boolean): string {
  if (oldStyle || (a.length <= 4 && Number(a) < 1990)) return `${a}/${b.slice(0, 4)}`;
  return `${a}/${b.length > 4 ? b.slice(0, 3) : b}`;
}

const REG = String.raw`(?:(?:Commission|Implementing|Delegated|Council|European Parliament and Council)\s+)*Regulation\s+\((?:EU|EC|EEC)\)\s+(No\.?\s+)?(\d{2,4})\/(\d{1,6})`;
const ARTICLE = new RegExp(
  String.raw`\bArt(?:icle|\.)s?\s+(\d{1,3})([a-z])?((?:\(\w{1,4}\))*)(?:(?:,\s*|\s+and\s+)\d{1,3}(?:\(\w{1,4}\))*)*(?:\s+(?:of|to)\s+(?:the\s+)?(?:(UAS Regulation|Basic Regulation|drone regulation)|(that Regulation)|` +
    REG +
    `))?`,
  'gi',
);
const REGULATION = new RegExp(REG, 'gi');
const SHORT_REG = /\b(?:EU\s+)?(?:regulation|reg\.?)\s+(20\d\d)\/(\d{3,4})\b|\b(2019\/9(?:45|47))\b/gi;
const DIRECTIVE = /\bDirective\s+(?:\((?:EU|EC|EEC)\)\s+)?(\d{2,4})\/(\d{1,4})(?:\/(?:EU|EC|EEC))?/gi;
const UAS_POINT = /\bUAS\.(OPEN|SPEC|STS|LUC|FTB)(?:-?(\d\d))?(?:\.(\d{3}))?((?:\(\w{1,4}\))*)/gi;
const ANNEX_PART_945 = /\bPart\s+(\d{1,2})\s+of\s+the\s+Annex\s+to\s+(?:(?:Delegated|Commission)\s+)*(?:Regulation\s+\(EU\)\s+2019\/945|that Regulation)/gi;
const ANNEX_PART_947 =
  /\bPart\s+([A-C])\s+of\s+the\s+Annex(?:\s+to\s+(?:(?:Implementing|Commission)\s+)*(?:Regulation\s+\(EU\)\s+2019\/947|the UAS Regulation))?/g;
const PART_UAS = /\bPart[- ]UAS\b(?:\s+(?:point\s+)?UAS\.)?/gi;
const CLASS_MARK = /\bclass(?:es)?\s+C([0-6])\b|\bC([0-6])[- ](?:class|marked|labell?ed|drones?|label)\b/gi;
const ICAO = /\bICAO\s+(Annex|Doc)\s+(\d{1,4})/gi;
const SERA = /\bSERA\.(\d{4})/g;
const ORO = /\bORO\.[A-Z]{2,4}\.\d{3}/g;
const CFR = /\b14\s+CFR\s+(?:Part\s+)?(\d{1,3})(?:\.(\d{1,4}))?/gi;
const STANDARD = /\b(EN|ISO|IEC)\s+(\d{3,5}(?:-\d{1,3})?)|\b(ED|DO)-(\d{2,3})[A-Z]?\b|\bSAE\s+ARP\s?(\d{4})[A-Z]?/g;
const DECISION = /\b(?:ED\s+)?Decision\s+(?:No\s+)?(\d{4})\/(\d{3})\/R\b/gi;
const PART_21 = /\bPart[- ]21\b/gi;

/** Named concepts whose rules live in another instrument (written the way the corpus writes them). */
const CONCEPTS: { key: string; re: RegExp; subject?: true }[] = [
  { key: 'concept:open-category', re: /[‘'"]?\bopen[’'"]?\s+(?:category|cat\.)|\bsubcategor(?:y|ies)\s+A[123]\b|\bA[123]\s+subcategor(?:y|ies)/gi },
  { key: 'concept:certified-category', re: /[‘'"]?\bcertified[’'"]?\s+category/gi },
  { key: 'uas:STS', re: /\bstandard\s+scenarios?\b|\bSTS[- ]?0?([12])\b/gi },
  { key: 'uas:LUC', re: /\blight\s+UAS\s+operator\s+certificates?\b|\bLUC\b/gi },
  { key: 'reg:2021/664', re: /\bU-space\b/gi },
  { key: 'reg:2019/947:art:15', re: /\bgeographical\s+zones?\b|\bgeo-?zones?\b/gi, subject: true },
  { key: 'reg:2019/947:art:14', re: /\bregistration\s+(?:number|mark|of\s+(?:the\s+)?UAS\s+operators?)\b|\bUAS\s+operator\s+registration\b/gi, subject: true },
  {
    key: 'concept:remote-pilot-competence',
    re: /\bremote\s+pilot\s+certificates?\b|\bcertificate\s+of\s+remote\s+pilot\s+competency\b|\bproof\s+of\s+(?:completion\s+of\s+)?online\s+training\b/gi,
    // a subject, not a name: which category's competence is asked about decides the instrument
    subject: true,
  },
  { key: 'national', re: /\bnational\s+(?:regulations?|rules?|laws?|legislation)\b/gi, subject: true },
  { key: 'concept:privacy', re: /\bprivacy\b|\bdata\s+protection\b/gi, subject: true },
  { key: 'concept:insurance', re: /\binsurance\b/gi, subject: true },
  { key: 'concept:liability', re: /\bliability\b/gi, subject: true },
  { key: 'concept:security-environment', re: /\benvironmental\s+protection\b/gi, subject: true },
  { key: 'jarus', re: /\bJARUS\b/g },
  { key: 'easa:light-uas', re: /\b(?:SC|MoC)\s+Light[- ]UAS\b/gi },
  { key: 'concept:model-aircraft-clubs', re: /\bmodel\s+aircraft\s+(?:clubs?|associations?)\b/gi, subject: true },
];

interface Span {
  start: number;
  end: number;
}
const overlaps = (spans: Span[], s: number, e: number): boolean => spans.some((x) => s < x.end && e > x.start);

/** Every reference in a text, in order of appearance; a span is claimed by the most specific pattern. */
export function scanReferences(raw: string): Reference[] {
  const text = collapse(raw);
  const out: Reference[] = [];
  const taken: Span[] = [];
  const push = (key: string, m: RegExpExecArray, subject?: true): void => {
    const start = m.index;
    const end = m.index + m[0].length;
    if (overlaps(taken, start, end)) return;
    taken.push({ start, end });
    out.push({ key, text: m[0], index: start, ...(subject ? { subject } : {}) });
  };
  /** The last Regulation named before `pos` ("that Regulation"). */
  const lastRegulationBefore = (pos: number): string | null => {
    let last: string | null = null;
    for (const m of text.slice(0, pos).matchAll(REGULATION)) last = regNumber(m[2]!, m[3]!, !!m[1]);
    return last;
  };

  for (const m of text.matchAll(ARTICLE)) {
    const [, num, letter, , named, that, oldNo, a, b] = m;
    let reg: string | null = HOME_REGULATION;
    if (a && b) reg = regNumber(a, b, !!oldNo);
    else if (that) reg = lastRegulationBefore(m.index!);
    else if (named && /basic/i.test(named)) reg = '2018/1139';
    if (!reg) continue;
    push(`reg:${reg}:art:${num}${letter ?? ''}`, m as RegExpExecArray);
  }
  for (const m of text.matchAll(ANNEX_PART_945)) push(`reg:2019/945:part:${m[1]}`, m as RegExpExecArray);
  for (const m of text.matchAll(ANNEX_PART_947)) push(`uas:${({ A: 'OPEN', B: 'SPEC', C: 'LUC' } as Record<string, string>)[m[1]!]}`, m as RegExpExecArray);
  for (const m of text.matchAll(REGULATION)) push(`reg:${regNumber(m[2]!, m[3]!, !!m[1])}`, m as RegExpExecArray);
  for (const m of text.matchAll(SHORT_REG)) {
    const id = m[3] ?? `${m[1]}/${m[2]}`;
    push(`reg:${id}`, m as RegExpExecArray);
  }
  for (const m of text.matchAll(DIRECTIVE)) push(`dir:${m[1]}/${m[2]}`, m as RegExpExecArray);
  for (const m of text.matchAll(UAS_POINT)) {
    const cat = m[1]!.toUpperCase();
    const sts = m[2] ? `-${m[2]}` : '';
    const point = m[3] ? `.${m[3]}` : '';
    push(`uas:${cat}${sts}${point}`, m as RegExpExecArray);
  }
  for (const m of text.matchAll(PART_UAS)) push('uas:', m as RegExpExecArray);
  // a class mark is a product attribute: the flight rules for class-marked UAS live in UAS.OPEN, the product rules in 2019/945
  for (const m of text.matchAll(CLASS_MARK)) push(`class:C${m[1] ?? m[2]}`, m as RegExpExecArray, true);
  for (const m of text.matchAll(ICAO)) push(`icao:${m[1]!.toLowerCase()}:${m[2]}`, m as RegExpExecArray);
  for (const m of text.matchAll(SERA)) push(`sera:${m[1]}`, m as RegExpExecArray);
  for (const m of text.matchAll(ORO)) push('oro', m as RegExpExecArray);
  for (const m of text.matchAll(CFR)) push(`cfr:14:${m[1]}${m[2] ? `.${m[2]}` : ''}`, m as RegExpExecArray);
  for (const m of text.matchAll(STANDARD)) {
    const key = m[1] ? `std:${m[1]} ${m[2]}` : m[3] ? `std:${m[3]}-${m[4]}` : `std:SAE ARP${m[5]}`;
    push(key, m as RegExpExecArray);
  }
  for (const m of text.matchAll(DECISION)) push(`decision:${m[1]}/${m[2]}`, m as RegExpExecArray);
  for (const m of text.matchAll(PART_21)) push('reg:748/2012:part21', m as RegExpExecArray);
  for (const c of CONCEPTS)
    for (const m of text.matchAll(c.re)) push(c.key === 'uas:STS' && m[1] ? `uas:STS-0${m[1]}` : c.key, m as RegExpExecArray, c.subject);
  return out.sort((x, y) => x.index - y.index);
}

/** The instrument whose key prefix is the longest prefix of `key`, or null. */
export function resolveKey<T extends { keys: string[] }>(key: string, instruments: readonly T[]): T | null {
  let best: T | null = null;
  let bestLen = -1;
  for (const ins of instruments) {
    for (const k of ins.keys) {
      const hit = key === k || (key.startsWith(k) && (k.endsWith(':') || k.endsWith('.') || /[:.(/-]/.test(key[k.length] ?? '')));
      if (hit && k.length > bestLen) {
        best = ins;
        bestLen = k.length;
      }
    }
  }
  return best;
}
