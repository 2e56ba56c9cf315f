/**
 * What is known about each instrument the corpus references: label, where its rule
 * lives, a description written here (no corpus text), the reference keys it claims
 * (src/core/coverage/refs.ts) and question cues.
 *
 * Provenance. Which instruments appear here was decided by scanning the corpus
 * (`npm run coverage:build` lists every reference no entry claims and fails on it).
 * Labels, locations and descriptions come from the instruments' public structure
 * (titles of the Regulation's Articles and of Part-UAS, Parts A/B/C of its Annex),
 * written in our own words. Question cues are the instruments' names and the
 * subject-matter words of those titles; none was taken from an evaluation question.
 * Status (absent / guidance-present) is computed by the build from the corpus's own
 * AMC/GM headings; `statusOverride` records the two cases decided by reading the corpus.
 *
 * Categories and notices (issue 33). `categories` says which categories of operation an entry's
 * rule belongs to (UAS.OPEN: 'open'), so that a question about another category (the specific
 * category, an operational authorisation, the SORA, a PDRA, a standard scenario …) is not sent to
 * it on a shared word; decided from the instruments' structure. `notice` is for subjects the
 * documents do not cover, decided by reading the corpus: they set no rule on insurance, liability,
 * security and environmental protection (the SORA excludes them from its scope; the application and
 * authorisation forms only have the operator declare compliance with the applicable Union and
 * national rules), and they only cite Article 15 of Regulation (EU) 2019/947 for geographical zones
 * (including those that protect aerodromes) and Regulation (EU) 2016/679 for personal data. The
 * build keeps, as the notice's sources, the passages of the verbatim documents that match
 * `evidence`, and fails when there is none or when `says` names an instrument no source cites.
 */
import type { CoverageCue, CoverageNotice, CoverageStatus, OperationCategory, CoverageCategory } from '../../src/core/coverage/types.js';

export interface InstrumentSpec {
  id: string;
  label: string;
  location: string;
  description: string;
  keys: string[];
  cues: CoverageCue[];
  statusOverride?: { status: CoverageStatus; reason: string };
  /** The categories of operation whose rules it holds; absent: not bound to one. */
  categories?: OperationCategory[];
  /** A subject the documents do not cover: the notice; `evidence` (a regular-expression source) finds its sources in the corpus. */
  notice?: Omit<CoverageNotice, 'sources'> & { evidence: string };
}

/**
 * How a question names a category of operation. Anything that exists only in the 'specific'
 * category (an operational authorisation, the SORA and its terms, a PDRA, a standard scenario, a
 * light UAS operator certificate, BVLOS) marks a 'specific' category question.
 */
export const CATEGORIES: CoverageCategory[] = [
  {
    id: 'open',
    label: "the 'open' category",
    cues: [
      String.raw`\bopen[’'"]?\s+(?:category|cat\.)`,
      String.raw`\bsub-?categor(?:y|ies)\s+A[123]\b|\bA[123]\s+sub-?categor`,
      String.raw`\bUAS\.OPEN\b`,
      String.raw`\bpart\s+A\s+of\s+the\s+annex\b`,
    ],
  },
  {
    id: 'specific',
    label: "the 'specific' category",
    cues: [
      String.raw`\bspecific[’'"]?\s+(?:category|cat\.)`,
      String.raw`\boperational\s+authori[sz]ations?\b|\bauthori[sz]ed\s+operations?\b|\bEASA\s+Form\s+20[89]\b`,
      String.raw`\bSORA\b|\bspecific\s+operations?\s+risk\s+assessment\b|\b(?:operational\s+)?risk\s+assessments?\b`,
      String.raw`\bPDRA(?:-?[SG]\d\d)?s?\b|\bpre-?defined\s+risk\s+assessments?\b`,
      String.raw`\bstandard\s+scenarios?\b|\bSTS[- ]?0?[12]\b|\bUAS\.STS\b`,
      String.raw`\bLUC\b|\blight\s+UAS\s+operator\s+certificates?\b`,
      String.raw`\bUAS\.SPEC\b|\bpart\s+B\s+of\s+the\s+annex\b`,
      String.raw`\bOSOs?\b|\boperational\s+safety\s+objectives?\b|\bSAIL\b|\b[if]?GRC\b|\bground\s+risk\s+class\b|\b(?:initial\s+|residual\s+)?ARC(?:-[a-d])?\b|\bair\s+risk\s+class\b|\bTMPR\b|\bConOps\b`,
      String.raw`\bBVLOS\b|\bbeyond\s+visual\s+line\s+of\s+sight\b`,
    ],
  },
  { id: 'certified', label: "the 'certified' category", cues: [String.raw`\bcertified[’'"]?\s+(?:category|cat\.)`] },
];

const named = (...res: string[]): CoverageCue[] => res.map((re) => ({ re, kind: 'named' as const }));
const topic = (...res: string[]): CoverageCue[] => res.map((re) => ({ re, kind: 'topic' as const }));

const R947 = 'Regulation (EU) 2019/947';
const R945 = 'Regulation (EU) 2019/945';

export const INSTRUMENTS: InstrumentSpec[] = [
  // ---- Implementing Regulation (EU) 2019/947: the Regulation itself and its Articles
  {
    id: 'r947',
    label: 'Implementing Regulation (EU) 2019/947 (the UAS Regulation)',
    location: `${R947}, Articles and Annex (Part-UAS)`,
    description:
      'The EU rules and procedures for operating unmanned aircraft; the documents here are its acceptable means of compliance and guidance, not its enacting text.',
    keys: ['reg:2019/947'],
    cues: [],
    statusOverride: {
      status: 'guidance-present',
      reason: 'The EASA document in the corpus is the AMC & GM to this Regulation; its specific Articles and points have their own entries.',
    },
  },
  {
    id: 'r947-art2',
    label: 'Article 2 of Regulation (EU) 2019/947 (definitions)',
    location: `${R947}, Article 2`,
    description: 'Definitions of the terms used by the UAS Regulation (UAS operator, remote pilot, uninvolved persons, assemblies of people, and others).',
    keys: ['reg:2019/947:art:2'],
    cues: named(String.raw`\barticle\s+2\b(?!\d)`),
    statusOverride: {
      status: 'quoted',
      reason: 'The SORA glossary (Annex I to AMC1 Article 11) cites the Article 2 definitions it uses, with their paragraph numbers.',
    },
  },
  {
    id: 'r947-art3',
    label: 'Article 3 of Regulation (EU) 2019/947 (categories of UAS operations)',
    location: `${R947}, Article 3`,
    description: "Splits UAS operations into the 'open', 'specific' and 'certified' categories.",
    keys: ['reg:2019/947:art:3'],
    cues: [
      ...named(String.raw`\barticle\s+3\b(?!\d)`),
      ...topic(
        String.raw`\b(?:three|which|what)\s+(?:are\s+the\s+)?(?:drone\s+|UAS\s+|operational\s+)?categor(?:y|ies)\b`,
        String.raw`\bcategories\s+of\s+(?:UAS|drone)\s+operations?\b`,
      ),
    ],
  },
  {
    id: 'r947-open',
    label: "The 'open' category (Article 4 and UAS.OPEN)",
    location: `${R947}, Article 4 and Part A of the Annex (UAS.OPEN)`,
    description:
      "Conditions for low-risk flights without an authorisation: the A1, A2 and A3 subcategories, mass and class-label limits, maximum height, distances from people, and the operator's and remote pilot's duties in that category.",
    keys: ['reg:2019/947:art:4', 'uas:OPEN', 'concept:open-category'],
    categories: ['open'],
    cues: [
      ...named(
        String.raw`\barticle\s+4\b(?!\d)`,
        String.raw`\bUAS\.OPEN\b`,
        String.raw`\bopen[’'"]?\s+category\b`,
        String.raw`\bpart\s+A\s+of\s+the\s+annex\b`,
      ),
      ...topic(
        String.raw`\b(?:sub-?categor(?:y|ies)\s*)A[123]\b|\bA[123]\s+(?:sub-?categor|category|operations?|flights?|rules?)`,
        String.raw`\b(?:hobby(?:ist)?|recreational(?:ly)?|leisure|for\s+fun|toy\s+drones?)\b`,
        String.raw`\b(?:under|below|less\s+than|lighter\s+than|up\s+to)\s+250\s?g|\b250\s?(?:g|grams?)\b|\bsub-?250\b`,
        String.raw`\bhow\s+(?:high|far|close)\s+(?:can|may|am)\s+I\b|\bmaximum\s+(?:flight\s+)?(?:height|altitude)\s+(?:for|of)\s+(?:my|a|hobby|recreational)`,
        String.raw`\b(?:fly|flying)\s+(?:my\s+)?(?:drone\s+)?over\s+(?:people|crowds|a\s+crowd|houses|residential)`,
      ),
    ],
  },
  {
    id: 'r947-art5',
    label: "Article 5 of Regulation (EU) 2019/947 (the 'specific' category)",
    location: `${R947}, Article 5`,
    description:
      "When an operation falls in the 'specific' category and which route it takes: an operational authorisation after a risk assessment, a declaration for a standard scenario, or a light UAS operator certificate.",
    keys: ['reg:2019/947:art:5'],
    categories: ['specific'],
    cues: named(String.raw`\barticle\s+5\b(?!\d)`),
  },
  {
    id: 'r947-art6',
    label: "The 'certified' category (Article 6)",
    location: `${R947}, Article 6`,
    description:
      "When an operation belongs to the 'certified' category (for example carrying people, transporting dangerous goods with high risk, or large UAS over assemblies of people) and what certification it then needs.",
    keys: ['reg:2019/947:art:6', 'concept:certified-category'],
    categories: ['certified'],
    cues: [
      ...named(String.raw`\barticle\s+6\b(?!\d)`, String.raw`\bcertified[’'"]?\s+category\b`),
      ...topic(
        String.raw`\b(?:air\s+taxis?|passenger\s+drones?)\b|\b(?:carry|carrying|transport|transporting)\s+(?:people|persons|passengers)\b`,
        String.raw`\b(?:operations?|flights?)\b.{0,40}\bmust\s+be\s+certified\b|\bwithout\s+certification\b`,
      ),
    ],
  },
  {
    id: 'r947-competence',
    label: "Remote pilot competence in the 'open' category (Article 8, UAS.OPEN.020–040)",
    location: `${R947}, Article 8(1) and Part A of the Annex (UAS.OPEN.020, .030, .040)`,
    description:
      "What training, online test or certificate of competency a remote pilot needs in the 'open' category (A1/A3 online training and test, A2 certificate of competency).",
    keys: ['reg:2019/947:art:8', 'concept:remote-pilot-competence'],
    // Article 8(2) leaves the specific category's competence to the authorisation, declaration or LUC: the documents' OSO #09 and PDRAs
    categories: ['open'],
    cues: [
      ...named(String.raw`\barticles?\s+8\b(?!\d)`),
      ...topic(
        String.raw`\bremote\s+pilot\s+certificate\b|\bcertificate\s+of\s+(?:remote\s+pilot\s+)?competen`,
        String.raw`\bA[12]\s+(?:certificate|CofC|exam|test|training)\b|\b(?:A1\/A3|A1-A3)\b`,
        String.raw`\bonline\s+(?:training|test|exam|course|theory)\b|\btheor(?:y|etical)\s+(?:exam|test)\b`,
        String.raw`\b(?:drone|pilot)\s+(?:licen[cs]e|licen[cs]ing)\b|\b(?:licen[cs]e|certificate)\s+to\s+fly\b|\bwithout\s+(?:a\s+|any\s+)?(?:licen[cs]e|certificate)\b`,
        String.raw`\bremote\s+pilots?\b.{0,60}\b(?:training|trained|exam|test|certificate)\b`,
      ),
    ],
  },
  {
    id: 'r947-art9',
    label: 'Minimum age of remote pilots (Article 9)',
    location: `${R947}, Article 9`,
    description:
      "The minimum age of remote pilots in the 'open' and 'specific' categories, the exceptions for toy-class and privately built light UAS and under supervision, and what Member States may lower.",
    keys: ['reg:2019/947:art:9'],
    categories: ['open', 'specific'],
    cues: [
      ...named(String.raw`\barticles?\s+9\b(?!\d)`),
      ...topic(
        String.raw`\bminimum\s+age\b|\bage\s+(?:limit|requirement|restriction)s?\b`,
        String.raw`\bhow\s+old\b.{0,40}\b(?:pilot|I|you|be|operator|child|kid)\b`,
        String.raw`\b\d{1,2}[- ]years?[- ]olds?\b|\b(?:children|kids|minors|teenagers?)\b.{0,40}\b(?:fly|pilot|operate)\b|\b(?:fly|pilot|operate)\b.{0,40}\b(?:children|kids|minors|teenagers?)\b`,
      ),
    ],
  },
  {
    id: 'r947-art13',
    label: 'Article 13 of Regulation (EU) 2019/947 (cross-border operations)',
    location: `${R947}, Article 13`,
    description: 'How an operation authorised in one Member State is flown in another: the application to the State of operation and what it may add.',
    keys: ['reg:2019/947:art:13'],
    categories: ['specific'],
    cues: [
      ...named(String.raw`\barticle\s+13\b`),
      ...topic(
        String.raw`\bcross-?border\b`,
        String.raw`\b(?:fly|flying|operate|operating|use)\b.{0,40}\b(?:another|other)\s+(?:EU\s+)?(?:member\s+state|country)\b|\babroad\b`,
      ),
    ],
  },
  {
    id: 'r947-art14',
    label: 'Registration of UAS operators and certified UAS (Article 14)',
    location: `${R947}, Article 14`,
    description:
      'Who must register as a UAS operator, with which authority, the registration number to display on the aircraft, and the registration of UAS whose design is certified.',
    keys: ['reg:2019/947:art:14'],
    cues: [
      ...named(String.raw`\barticle\s+14\b`),
      ...topic(String.raw`\bregist(?:er|ers|ering|ered|ration)\b`, String.raw`\boperator\s+(?:ID|number)\b|\be-?ID\b`),
    ],
  },
  {
    id: 'r947-art15',
    label: 'Geographical zones (Article 15)',
    location: `${R947}, Article 15`,
    description:
      'How Member States define geographical zones where UAS flights are restricted, prohibited or subject to conditions, and how that information is published.',
    keys: ['reg:2019/947:art:15'],
    cues: [
      ...named(String.raw`\barticle\s+15\b`),
      ...topic(
        String.raw`\bgeographical\s+zones?\b|\bgeo-?zones?\b|\bno-?fly\s+zones?\b|\brestricted\s+(?:zones?|areas?)\b|\bflight\s+restriction\s+zones?\b`,
        String.raw`\b(?:near|close\s+to|around|next\s+to|by|over|at|from)\s+(?:an?\s+|the\s+|my\s+local\s+)?(?:[A-Z][\w-]+\s+)?(?:airports?|aerodromes?|airfields?|heliports?|airstrips?)\b`,
        String.raw`\b(?:over|above|near)\s+(?:an?\s+|the\s+)?(?:nature\s+reserves?|national\s+parks?|military\s+(?:bases?|sites?|areas?)|prisons?|power\s+plants?|critical\s+infrastructure)\b`,
      ),
    ],
    notice: {
      kind: 'cited-only',
      subject: 'geographical zones, including those around airports',
      says: 'they cite Article 15 of Regulation (EU) 2019/947, under which the Member States define and publish such zones, including those that protect the aerodrome environment',
      evidence: String.raw`Article\s+15\s+of\s+(?:Implementing\s+)?Regulation\s+\(EU\)\s+2019\/947`,
    },
  },
  {
    id: 'r947-art16',
    label: 'Model aircraft clubs and associations (Article 16)',
    location: `${R947}, Article 16`,
    description: 'Authorisations a Member State may grant to model aircraft clubs and associations, with conditions that depart from the general rules.',
    keys: ['reg:2019/947:art:16', 'concept:model-aircraft-clubs'],
    cues: [
      ...named(String.raw`\barticle\s+16\b`),
      ...topic(
        String.raw`\bmodel\s+(?:aircraft|aeroplanes?|airplanes?|flying)\b|\bmodel(?:l)?ers?\b|\bflying\s+clubs?\b|\bclubs?\s+(?:and|or)\s+associations?\b`,
      ),
    ],
  },
  {
    id: 'r947-art17',
    label: 'Designation of the competent authority (Article 17)',
    location: `${R947}, Article 17`,
    description: 'Each Member State designates one or more authorities competent for the tasks of the UAS Regulation.',
    keys: ['reg:2019/947:art:17'],
    cues: named(String.raw`\barticle\s+17\b`),
  },
  {
    id: 'r947-art18',
    label: 'Tasks of the competent authority (Article 18)',
    location: `${R947}, Article 18`,
    description: 'What the competent authority does: registration systems, competency checks, authorisations, oversight and record keeping.',
    keys: ['reg:2019/947:art:18'],
    cues: named(String.raw`\barticle\s+18\b`),
  },
  {
    id: 'r947-art11',
    label: 'Article 11 of Regulation (EU) 2019/947 (rules for the operational risk assessment)',
    location: `${R947}, Article 11`,
    description: 'The elements an operational risk assessment must cover; its AMC is the SORA in the corpus.',
    keys: ['reg:2019/947:art:11'],
    cues: named(String.raw`\barticle\s+11\b`),
  },
  {
    id: 'r947-art12',
    label: 'Article 12 of Regulation (EU) 2019/947 (authorising operations in the specific category)',
    location: `${R947}, Article 12`,
    description: 'How the competent authority assesses the risk assessment and issues an operational authorisation; AMC to it is in the corpus.',
    keys: ['reg:2019/947:art:12'],
    cues: named(String.raw`\barticle\s+12\b`),
  },
  {
    id: 'r947-articles',
    label: 'Other Articles of Regulation (EU) 2019/947',
    location: `${R947}, Articles (enacting terms)`,
    description:
      'The enacting terms of the UAS Regulation not listed separately here: scope, general principles, operators from third countries, transition and entry into force.',
    keys: ['reg:2019/947:art:'],
    cues: [],
  },
  // ---- Part-UAS (Annex to 2019/947)
  {
    id: 'part-uas',
    label: 'Part-UAS (Annex to Regulation (EU) 2019/947)',
    location: `${R947}, Annex (Part-UAS)`,
    description:
      "The Annex with the operating requirements per category: Part A 'open', Part B 'specific' (with the standard scenarios in its Appendix 1), Part C light UAS operator certificate.",
    keys: ['uas:'],
    cues: named(String.raw`\bpart[- ]UAS\b`),
  },
  {
    id: 'uas-spec',
    label: "Part B of Part-UAS ('specific' category, UAS.SPEC)",
    location: `${R947}, Part B of the Annex (UAS.SPEC)`,
    description:
      "Requirements for operations in the 'specific' category: declarations, applications and authorisations, the operator's and remote pilot's responsibilities.",
    keys: ['uas:SPEC'],
    categories: ['specific'],
    cues: named(String.raw`\bUAS\.SPEC\b(?!\.(?:030|040))`, String.raw`\bpart\s+B\s+of\s+the\s+annex\b`),
  },
  {
    id: 'uas-spec-030',
    label: 'UAS.SPEC.030 (application for an operational authorisation)',
    location: `${R947}, Part B of the Annex, UAS.SPEC.030`,
    description: 'What an application for an operational authorisation must contain; its AMC/GM (EASA Form 208, operational procedures) are in the corpus.',
    keys: ['uas:SPEC.030'],
    cues: named(String.raw`\bUAS\.SPEC\.030\b`),
  },
  {
    id: 'uas-spec-040',
    label: 'UAS.SPEC.040 (issuing an operational authorisation)',
    location: `${R947}, Part B of the Annex, UAS.SPEC.040`,
    description: 'How the competent authority issues an operational authorisation; its AMC (EASA Form 209) is in the corpus.',
    keys: ['uas:SPEC.040'],
    cues: named(String.raw`\bUAS\.SPEC\.040\b`),
  },
  {
    id: 'uas-spec-050',
    label: 'UAS.SPEC.050 (responsibilities of the UAS operator)',
    location: `${R947}, Part B of the Annex, UAS.SPEC.050`,
    description:
      "The duties of a UAS operator in the 'specific' category: procedures, staff competence, maintenance, records, and the equipment the aircraft must carry.",
    keys: ['uas:SPEC.050'],
    categories: ['specific'],
    cues: named(String.raw`\bUAS\.SPEC\.050\b`),
  },
  {
    id: 'uas-spec-060',
    label: 'UAS.SPEC.060 (responsibilities of the remote pilot)',
    location: `${R947}, Part B of the Annex, UAS.SPEC.060`,
    description: "The remote pilot's duties before and during a flight in the 'specific' category (fitness, information, checks, limits).",
    keys: ['uas:SPEC.060'],
    categories: ['specific'],
    cues: named(String.raw`\bUAS\.SPEC\.060\b`),
  },
  {
    id: 'uas-spec-100',
    label: 'UAS.SPEC.100 (use of certified equipment and certified UA)',
    location: `${R947}, Part B of the Annex, UAS.SPEC.100`,
    description:
      "Consequences of using equipment or an unmanned aircraft with a certificate in the 'specific' category (airworthiness, maintenance, staff licensing).",
    keys: ['uas:SPEC.100'],
    categories: ['specific'],
    cues: named(String.raw`\bUAS\.SPEC\.100\b`),
  },
  {
    id: 'uas-sts',
    label: 'Standard scenarios STS-01 and STS-02 (UAS.STS, declarations)',
    location: `${R947}, Part B of the Annex (UAS.SPEC.020) and its Appendix 1 (STS-01, STS-02)`,
    description:
      "The standard scenarios flown on a declaration instead of an authorisation: their operational limits, the required class-marked UAS (C5, C6), remote pilot training and the operator's duties.",
    keys: ['uas:STS', 'uas:SPEC.020'],
    categories: ['specific'],
    cues: [
      ...named(String.raw`\bUAS\.STS\b`, String.raw`\bSTS[- ]?0?[12]\b`, String.raw`\bUAS\.SPEC\.020\b`),
      ...topic(String.raw`\bstandard\s+scenarios?\b`, String.raw`\bdeclar(?:e|ation)\b.{0,40}\b(?:operations?|operator|scenario)\b`),
    ],
  },
  {
    id: 'uas-luc',
    label: 'Light UAS operator certificate (LUC, Part C)',
    location: `${R947}, Part C of the Annex (UAS.LUC)`,
    description: 'The certificate an organisation can hold to authorise its own operations: its management system, privileges and obligations.',
    keys: ['uas:LUC'],
    categories: ['specific'],
    cues: [
      ...named(String.raw`\bUAS\.LUC\b`, String.raw`\bLUC\b`, String.raw`\bpart\s+C\s+of\s+the\s+annex\b`),
      ...topic(String.raw`\blight\s+UAS\s+operator\s+certificate\b|\bself-?authori[sz]\w*`),
    ],
  },
  // ---- Delegated Regulation (EU) 2019/945
  {
    id: 'r945',
    label: 'Delegated Regulation (EU) 2019/945 (UAS and class identification labels)',
    location: `${R945} (Articles and Annex)`,
    description:
      'Product rules for UAS placed on the EU market: class identification labels C0 to C6, manufacturer and importer obligations, conformity assessment, and third-country UAS operators.',
    keys: ['reg:2019/945', 'class:'],
    cues: [
      ...named(String.raw`\b2019\/945\b`, String.raw`\bdelegated\s+regulation\b`),
      ...topic(
        // not "C2 link" (command and control) nor "C3" (command, control and communication)
        String.raw`\bclass\s+(?:C[0-6]|identification|label|mark(?:ing)?)\b|\bC[0-6]\b(?![- ]?(?:links?|datalinks?|command|communication))(?:[- ](?:class|marked|label|drones?|UAS))?`,
        String.raw`\bclass[- ](?:labell?ed|marked)\b|\bCE\s+(?:mark|marking|label)\b`,
        String.raw`\b(?:manufacturers?|importers?|distributors?)\b.{0,40}\b(?:obligations?|requirements?|must)\b|\bplaced?\s+on\s+the\s+market\b|\bmarket\s+surveillance\b`,
        String.raw`\bremote\s+ID\b|\b(?:direct|network)\s+remote\s+identification\b`,
      ),
    ],
  },
  {
    id: 'r945-annex',
    label: 'Annex to Regulation (EU) 2019/945 (requirements per class, Parts 1–17)',
    location: `${R945}, Annex, Parts 1 to 17`,
    description:
      'The technical requirements each class of UAS and each accessory (such as a remote-identification add-on) must meet, one Part per class or item, and the test methods.',
    keys: ['reg:2019/945:part:'],
    cues: named(String.raw`\bpart\s+\d{1,2}\s+of\s+the\s+annex\s+to\s+(?:delegated\s+)?regulation\s+\(EU\)\s+2019\/945`),
  },
  {
    id: 'r945-art40',
    label: 'Article 40 of Regulation (EU) 2019/945 (UAS in the certified and specific categories)',
    location: `${R945}, Article 40`,
    description: "When the design, production and maintenance of a UAS flown in the 'certified' or 'specific' category must be certified.",
    keys: ['reg:2019/945:art:40'],
    categories: ['specific', 'certified'],
    cues: named(String.raw`\barticle\s+40\b`),
  },
  // ---- other Union acts
  {
    id: 'r2018-1139',
    label: 'Regulation (EU) 2018/1139 (the Basic Regulation)',
    location: 'Regulation (EU) 2018/1139',
    description:
      'The EU civil aviation framework law that sets up EASA and the essential requirements for aircraft, including unmanned aircraft, on which the UAS Regulations are based.',
    keys: ['reg:2018/1139'],
    cues: named(String.raw`\b2018\/1139\b`, String.raw`\bbasic\s+regulation\b`),
  },
  {
    id: 'r748-2012',
    label: 'Regulation (EU) No 748/2012 (Part 21)',
    location: 'Regulation (EU) No 748/2012, Annex I (Part 21)',
    description:
      'Airworthiness and environmental certification of aircraft and of their design and production organisations (type certificates, design organisation approvals).',
    keys: ['reg:748/2012'],
    cues: named(String.raw`\b748\/2012\b`, String.raw`\bpart[- ]21\b`),
  },
  {
    id: 'r965-2012',
    label: 'Regulation (EU) No 965/2012 (air operations)',
    location: 'Regulation (EU) No 965/2012 (Air Operations Regulation)',
    description:
      'Technical requirements and procedures for air operations of manned aircraft (air operator certificates, crew training, definitions such as congested area).',
    keys: ['reg:965/2012', 'oro'],
    cues: named(String.raw`\b965\/2012\b`, String.raw`\bair\s+operations\s+regulation\b`, String.raw`\bORO\.[A-Z]+\.\d+`),
  },
  {
    id: 'r923-2012',
    label: 'Regulation (EU) No 923/2012 (SERA, rules of the air)',
    location: 'Implementing Regulation (EU) No 923/2012 (Standardised European Rules of the Air)',
    description: 'The common rules of the air and air-navigation procedures, including the rules on avoiding collisions and on airspace classes.',
    keys: ['reg:923/2012', 'sera:'],
    cues: [...named(String.raw`\b923\/2012\b`, String.raw`\bSERA\b`), ...topic(String.raw`\brules\s+of\s+the\s+air\b`)],
  },
  {
    id: 'r376-2014',
    label: 'Regulation (EU) No 376/2014 (occurrence reporting)',
    location: 'Regulation (EU) No 376/2014',
    description: 'Reporting, analysis and follow-up of occurrences in civil aviation: what must be reported, by whom and to whom.',
    keys: ['reg:376/2014'],
    cues: [
      ...named(String.raw`\b376\/2014\b`),
      ...topic(String.raw`\boccurrence\s+report`, String.raw`\breport(?:ing)?\s+(?:an?\s+)?(?:accident|incident|crash|occurrence)\b`),
    ],
  },
  {
    id: 'r2016-679',
    label: 'Regulation (EU) 2016/679 (GDPR)',
    location: 'Regulation (EU) 2016/679 (General Data Protection Regulation)',
    description: 'Protection of personal data, including images and recordings made by drone cameras, and data protection impact assessments.',
    keys: ['reg:2016/679', 'dir:95/46', 'concept:privacy'],
    cues: [
      ...named(String.raw`\b2016\/679\b`, String.raw`\bGDPR\b`),
      ...topic(
        String.raw`\bpersonal\s+data\b|\bprivacy\b|\bdata\s+protection\b`,
        String.raw`\b(?:film(?:ing)?|photograph(?:ing)?|record(?:ing)?|video)\b.{0,40}\b(?:people|neighbou?rs?|persons?|private)\b`,
        String.raw`\b(?:consent|permission)\b.{0,40}\b(?:film|photograph|record)`,
      ),
    ],
    notice: {
      kind: 'cited-only',
      subject: 'privacy and data protection',
      says: 'the SORA leaves them out of its scope, and for the processing of personal data in a UAS operation they cite Regulation (EU) 2016/679 (GDPR), with which the operator declares its procedures comply',
      evidence: String.raw`(?:compliance|comply)\s+with\s+Regulation\s+\(EU\)\s+2016\/679|\bPrivacy,\s+data\s+protection,\s+liability\b`,
    },
  },
  {
    id: 'insurance',
    label: 'Insurance (not set by these documents)',
    location: 'Other applicable Union and national rules (these documents name none)',
    description: 'Whether a drone operator must hold insurance, such as third-party liability cover, and how much.',
    keys: ['concept:insurance'],
    cues: topic(String.raw`\binsur(?:ance|ed|e|er|ers)\b`, String.raw`\b(?:third[- ]party|liability)\s+cover(?:age)?\b`),
    notice: {
      kind: 'not-regulated',
      subject: 'insurance',
      says: 'they set no insurance requirement; the SORA leaves insurance out of its scope, and the application and authorisation forms only have the operator declare that the operation complies with the applicable Union and national rules on insurance and that the cover, where required, is in place',
      evidence: String.raw`\binsurance\b`,
    },
  },
  {
    id: 'liability',
    label: 'Liability for damage (not set by these documents)',
    location: 'Other applicable Union and national rules (these documents name none)',
    description: 'Who is liable, and who compensates, when an unmanned aircraft causes injury or damage.',
    keys: ['concept:liability'],
    cues: topic(
      String.raw`\bliab(?:le|ility)\b(?!\s+(?:insurance|cover))`,
      String.raw`\b(?:compensation|compensate)\b|\bwho\s+(?:pays|is\s+responsible)\b.{0,60}\b(?:damage|injur|harm|crash)`,
    ),
    notice: {
      kind: 'not-regulated',
      subject: 'liability for damage',
      says: 'they set no liability rule; the SORA leaves liability out of its scope, and the application and authorisation forms only have the operator declare compliance with the applicable Union and national rules on it',
      evidence: String.raw`\bliability,\s+insurance\b`,
    },
  },
  {
    id: 'union-national-other',
    label: 'Security and environmental protection (not set by these documents)',
    location: 'Other applicable Union and national rules (these documents name none)',
    description:
      'Rules outside aviation safety on the security of UAS operations and on environmental protection, such as noise and disturbance of people and wildlife.',
    keys: ['concept:security-environment'],
    cues: topic(
      String.raw`\bnoise\b|\bnuisance\b`,
      String.raw`\benvironmental\s+(?:protection|rules?|law|impact)\b|\bwildlife\b|\b(?:disturb|disturbing)\s+(?:animals|birds|wildlife)\b`,
    ),
    notice: {
      kind: 'not-regulated',
      subject: 'security and environmental protection',
      says: 'they set no rule on them; the SORA leaves security and environmental protection out of its scope, and the application and authorisation forms only have the operator declare compliance with the applicable Union and national rules on them',
      evidence: String.raw`\bliability,\s+insurance,\s+security,?\s+and\s+environmental\s+protection\b`,
    },
  },
  {
    id: 'national',
    label: 'National rules of the Member States',
    location: 'National law of the Member State concerned (not in these documents)',
    description:
      'What each Member State adds or decides nationally: authorities, fees, zones, age, drugs and alcohol limits, and aircraft below the thresholds of the EU rules.',
    keys: ['national'],
    cues: [
      ...named(String.raw`\bnational\s+(?:law|laws|rules?|regulations?|legislation|requirements?)\b`),
      ...topic(
        String.raw`\bin\s+(?:Germany|France|Italy|Spain|Austria|Belgium|the\s+Netherlands|Netherlands|Ireland|Poland|Sweden|Denmark|Finland|Portugal|Greece|Czechia|the\s+Czech\s+Republic|Hungary|Romania|Bulgaria|Croatia|Slovenia|Slovakia|Estonia|Latvia|Lithuania|Luxembourg|Malta|Cyprus|Switzerland|Norway|Iceland|Liechtenstein)\b`,
      ),
    ],
  },
  {
    id: 'r2021-664',
    label: 'Implementing Regulation (EU) 2021/664 (U-space)',
    location: 'Implementing Regulation (EU) 2021/664 (U-space regulatory framework)',
    description:
      'U-space airspace and its services (network identification, geo-awareness, flight authorisation, traffic information) and the duties of U-space service providers.',
    keys: ['reg:2021/664'],
    cues: named(String.raw`\b2021\/664\b`, String.raw`\bU-?space\b`),
  },
  {
    id: 'r2024-1107',
    label: 'Delegated Regulation (EU) 2024/1107 (continuing airworthiness of UAS)',
    location: 'Delegated Regulation (EU) 2024/1107',
    description: 'Requirements for keeping unmanned aircraft airworthy, cited by the corpus for maintenance staff and maintenance release.',
    keys: ['reg:2024/1107'],
    cues: named(String.raw`\b2024\/1107\b`),
  },
  {
    id: 'r2017-373',
    label: 'Implementing Regulation (EU) 2017/373 (ATM/ANS providers)',
    location: 'Implementing Regulation (EU) 2017/373',
    description: 'Requirements for providers of air traffic management and air navigation services and the design of airspace structures.',
    keys: ['reg:2017/373'],
    cues: named(String.raw`\b2017\/373\b`),
  },
  {
    id: 'dir-2014-53',
    label: 'Directive 2014/53/EU (radio equipment)',
    location: 'Directive 2014/53/EU (Radio Equipment Directive)',
    description: 'Conditions for placing radio equipment on the market and using radio spectrum, relevant to command-and-control and video links.',
    keys: ['dir:2014/53'],
    cues: named(String.raw`\b2014\/53\b`, String.raw`\bradio\s+equipment\s+directive\b`),
  },
  {
    id: 'dir-2009-128',
    label: 'Directive 2009/128/EC (sustainable use of pesticides)',
    location: 'Directive 2009/128/EC',
    description: 'Union framework for pesticide use, including its restrictions on aerial spraying.',
    keys: ['dir:2009/128'],
    cues: [...named(String.raw`\b2009\/128\b`), ...topic(String.raw`\bpesticides?\b|\bcrop\s+spraying\b|\baerial\s+spraying\b`)],
  },
  // ---- international, foreign and industry references
  {
    id: 'icao',
    label: 'ICAO Annexes (Annex 2 Rules of the Air, Annex 11 Air Traffic Services)',
    location: 'ICAO Annexes to the Chicago Convention',
    description: 'International standards on rules of the air, air traffic services and airspace classes that the SORA text refers to.',
    keys: ['icao:'],
    cues: named(String.raw`\bICAO\b`),
  },
  {
    id: 'us-14cfr',
    label: 'US Federal Aviation Regulations (14 CFR)',
    location: 'Title 14 of the US Code of Federal Regulations',
    description: 'United States aviation rules, cited by the corpus only for the right-of-way rule; US drone rules are not EU law.',
    keys: ['cfr:'],
    cues: named(String.raw`\b14\s+CFR\b`, String.raw`\bFAA\b`, String.raw`\bpart\s+107\b`),
  },
  {
    id: 'standards',
    label: 'Industry standards (EUROCAE ED-, RTCA DO-, EN, SAE ARP)',
    location: 'The standard named (published by EUROCAE, RTCA, CEN or SAE)',
    description:
      'Technical standards the corpus cites as possible means of compliance (environmental testing, remote identification, development assurance); their content is not in these documents.',
    keys: ['std:'],
    cues: named(
      String.raw`\bED-\d{2,3}\b`,
      String.raw`\bDO-\d{2,3}\b`,
      String.raw`\bEN\s+\d{4,5}\b`,
      String.raw`\bARP\s?\d{4}\b`,
      String.raw`\bEUROCAE\b`,
      String.raw`\bRTCA\b`,
    ),
  },
  {
    id: 'easa-decisions',
    label: 'Other EASA Executive Director Decisions',
    location: 'The EASA ED Decision named (earlier issues of the AMC & GM, other AMC)',
    description: 'EASA decisions other than the one in the corpus, such as earlier amendments of the AMC & GM and certification specifications.',
    keys: ['decision:'],
    cues: named(String.raw`\bED\s+decision\s+(?!2025\/018)\d{4}\/\d{3}`),
  },
  {
    id: 'ed-2025-018',
    label: 'ED Decision 2025/018/R (the corpus document)',
    location: 'Annex to ED Decision 2025/018/R (in the corpus)',
    description: 'The EASA decision whose annex is the corpus document.',
    keys: ['decision:2025/018'],
    cues: [],
    statusOverride: { status: 'guidance-present', reason: 'Its annex is the EASA document in the corpus.' },
  },
  {
    id: 'easa-light-uas',
    label: 'EASA Special Condition Light-UAS and its means of compliance',
    location: 'EASA Special Condition Light-UAS and the related MoC documents',
    description:
      'EASA design verification requirements for light UAS in medium and high risk operations, with their means of compliance (such as flight-test methods).',
    keys: ['easa:light-uas', 'uas:FTB'],
    cues: named(String.raw`\bSC[- ]Light[- ]UAS\b`, String.raw`\bMoC\s+Light[- ]UAS\b`, String.raw`\bspecial\s+condition\b`),
  },
  {
    id: 'jarus',
    label: 'JARUS publications (JARUS SORA and AMC RPAS)',
    location: 'JARUS (Joint Authorities for Rulemaking on Unmanned Systems) documents',
    description: 'The JARUS documents the EASA SORA derives from; the corpus holds the EASA text, not the JARUS editions.',
    keys: ['jarus'],
    cues: named(String.raw`\bJARUS\b`),
  },
];
