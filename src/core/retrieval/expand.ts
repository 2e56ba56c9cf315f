/**
 * Query expansion from everyday wording to the regulation's terms. Users (and
 * inspectors' notes) say "permit", "regulator", "spotter", "leash"; the text says
 * "operational authorisation", "competent authority", "airspace observer",
 * "tethered". A small lexicon of such pairs adds the regulatory terms to the
 * lexical query and to a second dense query; every entry maps a lay phrase to
 * terms that the AMC/GM glossary or body uses.
 *
 * Caveat: the entries were written while reading the development questions
 * (every entry fires on one of them; 19 of 40 on a single question group), so
 * the dev figures overstate what it does for unseen questions. `npm run eval --
 * --lexicon-holdout` measures the leave-one-group-out estimate (docs/retrieval.md).
 */
const LEXICON: [RegExp, string][] = [
  [/\bpermits?\b|\bpermission\b|\blicen[cs]e to fly\b/i, 'operational authorisation'],
  [/\bregulators?\b|\bthe authority\b|\baviation authority\b|\bCAA\b/i, 'competent authority'],
  [/\bspotters?\b|\bsky[- ]watchers?\b|\bwatch(?:es|ing)? the sky\b|\blook ?outs?\b|\bhelpers?\b.*\b(?:sky|traffic|planes?)\b/i, 'airspace observer AO'],
  [/\bout of (?:sight|view)\b|\bbeyond (?:line of )?sight\b|\bcan'?t see\b/i, 'BVLOS beyond visual line of sight'],
  [/\bin sight\b|\bwithin sight\b|\bline of sight\b/i, 'VLOS visual line of sight'],
  [/\bleash\b|\bcable\b|\btether(?:ed)?\b|\bwire\b/i, 'tethered UA line strength'],
  [/\bcrowds?\b|\bgatherings?\b|\bfestival\b|\bconcert\b|\bstadium\b/i, 'assemblies of people'],
  [/\bparticipants?\b|\bcrew members?\b|\bstaff\b.*\b(?:around|present|set)\b/i, 'involved persons'],
  [/\bmembers? of the public\b|\bbystanders?\b|\bthird parties\b|\bpassers?-by\b/i, 'uninvolved persons'],
  [/\bsafety margin\b|\bsafety strip\b|\bbuffer\b|\bmargin zone\b/i, 'ground risk buffer contingency volume'],
  [/\bflight area\b|\bflying zone\b|\bplanned area\b/i, 'flight geography operational volume'],
  [/\bfly-?away\b|\bwander off\b|\bescape\b/i, 'containment adjacent ground area loss of control'],
  [/\bout of control\b|\blos(?:e|ing|t) control\b/i, 'loss of control of the operation'],
  [/\bparachute\b/i, 'M2 effects of UA impact dynamics flight termination'],
  [/\bshelter(?:ed|ing)?\b|\bindoors\b|\bbuildings protect\b/i, 'M1(A) sheltering'],
  [/\bemergency (?:plan|response)\b|\bcrash (?:response|plan)\b/i, 'emergency response plan ERP'],
  [/\bdrill\b|\bexercise\b|\btabletop\b/i, 'emergency response plan validation tabletop exercise'],
  [/\bmanual\b/i, 'operations manual'],
  [/\bhead ?count\b|\bhow many people live\b|\bresidents?\b|\bpopulation map\b|\bofficial map\b/i, 'population density map'],
  [/\bsparsely populated\b|\bempty countryside\b|\bfarmland\b|\brural\b/i, 'population density low'],
  [/\bcity\b|\btown\b|\bvillage\b|\burban\b|\bhousing\b/i, 'populated area population density'],
  [/\bmid-?air\b|\bcollision with (?:planes?|aircraft)\b|\bplanes? and helicopters?\b|\bcrewed aircraft\b|\bmanned aircraft\b/i, 'air risk ARC mid-air collision manned aircraft'],
  [/\bclosed-?off zone\b|\bsegregated\b|\brestricted area\b/i, 'atypical air environment segregated airspace ARC-a'],
  [/\bsafety measures?\b|\bsafeguards?\b/i, 'mitigation'],
  [/\bself-?declare\b|\bown (?:statement|declaration)\b/i, 'declaration low assurance'],
  [/\bhow (?:well|strong).*proven\b|\bevidence\b.*\bworks?\b|\bproof\b/i, 'level of assurance'],
  [/\beffectiveness\b|\bsafety benefit\b|\bsafety gain\b|\bhow good\b/i, 'level of integrity'],
  [/\bstrength rating\b|\boverall (?:rating|strength)\b/i, 'level of robustness'],
  [/\brisk class(?:es)?\b|\brisk score\b|\bstarting score\b/i, 'GRC ARC risk class'],
  [/\bdesign approval\b|\bcertif(?:ied|ication) basis\b|\bairworthiness\b/i, 'design verification SC Light-UAS airworthiness OSO #04'],
  [/\bchecklist\b|\bwalk-?around\b|\bpre-?flight\b|\bpost-?flight\b/i, 'pre-flight inspection OSO #07 conformity check'],
  [/\bweather\b|\benvironmental (?:conditions|testing)\b/i, 'adverse environmental conditions OSO #24 environmental qualification'],
  [/\bserial number\b|\breplac(?:e|ing) (?:one of )?(?:the|our)? ?(?:drone|aircraft)\b|\bidentification number\b/i, 'serial number change prior approval'],
  [/\bexpir(?:y|es|ed)\b|\bnever runs out\b|\bunlimited\b|\bopen-?ended\b|\breapply\b/i, 'duration validity unlimited operational authorisation'],
  [/\bsole[- ]trader\b|\bone-person\b|\bon my own\b|\bsingle[- ]person\b/i, 'one-person entity single-person organisation'],
  [/\bpassengers?\b|\bcarriage of people\b/i, 'carriage of people'],
  [/\bexplosives?\b|\bammunition\b|\bhazardous (?:cargo|goods)\b|\bweapons?\b/i, 'dangerous goods'],
  [/\bfixed-?wing\b|\baeroplane-type\b|\bglide\b/i, 'fixed-wing aircraft glide'],
  [/\bquadcopter\b|\bmulti-?(?:copter|rotor)\b/i, 'multirotor rotorcraft'],
  [/\bmain risk assessment\b|\bstandard risk assessment\b|\brisk methodology\b|\brisk assessment method\b/i, 'SORA scope applicability'],
];

/**
 * Regulatory terms implied by the query's everyday wording (deduplicated, in
 * lexicon order). Entries whose terms are in `exclude` are skipped (used by the
 * evaluation's leave-one-group-out estimate, lexiconHoldout).
 */
export function expansionTerms(query: string, exclude: readonly string[] = []): string[] {
  const out: string[] = [];
  for (const [re, terms] of LEXICON) if (!exclude.includes(terms) && re.test(query) && !out.includes(terms)) out.push(terms);
  return out;
}

export const LEXICON_SIZE = LEXICON.length;

/**
 * Held-out estimate for a hand-written lexicon: an entry that fires on the
 * questions of only one group of an evaluation set may have been written for
 * that group, so when that group is measured the entry is left out (as if the
 * group had not been seen). Returns, per group, the entry terms to exclude.
 */
export function lexiconHoldout(questions: readonly { question: string; group: string }[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [re, terms] of LEXICON) {
    const groups = new Set(questions.filter((q) => re.test(q.question)).map((q) => q.group));
    if (groups.size !== 1) continue;
    const [g] = groups;
    out.set(g!, [...(out.get(g!) ?? []), terms]);
  }
  return out;
}
