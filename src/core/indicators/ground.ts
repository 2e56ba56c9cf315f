/**
 * One reading of the ground, in both directions, from the documents' own tables:
 *  - ground environment → population density band: SORA 2.5 Table 2 (S.4.2.4, p. 26) puts each
 *    qualitative descriptor on one row of Table 1 ("Sparsely populated" on "< 500"); S.4.2.4(d)
 *    lets the operator use these descriptors when density values are not available. "Populated
 *    area" is not a Table 2 descriptor: the EASA forms print it against three rows, so no single
 *    band follows from it.
 *  - population density band → what the documents call that ground: Table 2's descriptors of the
 *    band's row, and the EASA forms' group that prints the band.
 * A ground environment and a band agree when both documents allow the pair; they disagree when
 * neither does; and where one document allows the pair and the other does not, that difference
 * between the documents is said, once, with both sources.
 */
import { DENSITY_DESCRIPTORS_TABLE, FORM_DESCRIPTORS, type DescriptorRow } from '../sora/tables/density-descriptors-table.js';
import type { PopulationBand } from '../sora/tables/igrc-table.js';
import { traceFrom, type TraceStep } from '../sora/types.js';
import { GROUND_ENVIRONMENT_LABELS, GROUND_ENVIRONMENTS, POPULATION_BAND_LABELS, type GroundEnvironment } from './inputs.js';

const T2 = DENSITY_DESCRIPTORS_TABLE;
const FORM = FORM_DESCRIPTORS[0]!;

/** Which words of each document the ground environment choice is. */
export const GROUND_ENVIRONMENT_WORDS: Readonly<Record<GroundEnvironment, { readonly table2Descriptor: string | null; readonly formDescriptor: string }>> = {
  controlled_ground_area: { table2Descriptor: 'Controlled ground', formDescriptor: 'controlled ground area' },
  sparsely_populated: { table2Descriptor: 'Sparsely populated', formDescriptor: 'sparsely populated area' },
  populated: { table2Descriptor: null, formDescriptor: 'populated area' },
  assembly_of_people: { table2Descriptor: 'Assemblies of people', formDescriptor: 'assemblies of people' },
};

/** "AMC & GM to Regulation (EU) 2019/947, S.4.2.4, p. 26": Table 2's document, section and page. */
const TABLE2_SOURCE = `AMC & GM to Regulation (EU) 2019/947, ${T2.source.section}, p. ${T2.source.page}`;

/** "EASA Forms 208 and 209" and "pp. 176–177 and 197": the forms and their pages. */
const FORMS_NAMES = `EASA Forms ${FORM_DESCRIPTORS.map((f) => /Form (\d+)/.exec(f.source.caption)?.[1] ?? f.source.caption).join(' and ')}`;
const FORMS_PAGES = `pp. ${FORM_DESCRIPTORS.map((f) => (f.source.lastPage ? `${f.source.page}–${f.source.lastPage}` : `${f.source.page}`)).join(' and ')}`;
const FORMS_SHORT = `${FORMS_NAMES}, ${FORMS_PAGES}`;

/** A band in words, without the label's gloss ("> 50 000 people/km²"). */
const shortBand = (band: PopulationBand): string => POPULATION_BAND_LABELS[band].replace(/\s*\(.*\)$/, '');

/** "up to 5 000, up to 50 000 and more than 50 000". */
const plainRows = (rows: readonly string[]) => (rows.length > 1 ? `${rows.slice(0, -1).join(', ')} and ${rows.at(-1)}` : (rows[0] ?? ''));

const rowOfBand = (band: PopulationBand): DescriptorRow => T2.rows.find((r) => r.band === band) as DescriptorRow;
const rowOfDescriptor = (descriptor: string): DescriptorRow | null => T2.rows.find((r) => (r.descriptors as readonly string[]).includes(descriptor)) ?? null;
const formGroup = (descriptor: string) => FORM.groups.find((g) => g.descriptor === descriptor)!;
const formGroupsOfBand = (band: PopulationBand) => FORM.groups.filter((g) => g.bands.includes(band));

/** What Table 2 calls a band's ground ("Sparsely populated / Residential lightly populated"). */
export function table2Descriptors(band: PopulationBand): string {
  return rowOfBand(band).descriptors.join(' / ');
}

export interface GroundReading {
  readonly environment: GroundEnvironment;
  /** The band Table 2 gives the environment's descriptor; null when the documents give several. */
  readonly band: PopulationBand | null;
  /** The Table 2 cell the band was read from (null without a band). */
  readonly trace: TraceStep | null;
  /** In words, with the source: how the band was read, or why no band follows. */
  readonly statement: string;
}

/** The population density band a ground environment means, read with Table 2. */
export function readGround(environment: GroundEnvironment): GroundReading {
  const words = GROUND_ENVIRONMENT_WORDS[environment];
  const label = GROUND_ENVIRONMENT_LABELS[environment];
  const row = words.table2Descriptor ? rowOfDescriptor(words.table2Descriptor) : null;
  if (!row) {
    const g = formGroup(words.formDescriptor);
    return {
      environment,
      band: null,
      trace: null,
      statement: `Choose the population density band: "${label}" is not in Table 2 and covers ${g.printedRows.length} bands (${plainRows(g.printedRows)} people/km²; ${FORMS_SHORT}).`,
    };
  }
  const g = formGroup(words.formDescriptor);
  const lowerFormBands = g.bands.length > 1 && g.bands.includes(row.band) ? g.printedRows.filter((_, i) => g.bands[i] !== row.band) : [];
  return {
    environment,
    band: row.band,
    trace: traceFrom(
      T2.source,
      row.quantitative,
      'Qualitative descriptors',
      row.descriptors.join(' / '),
      `ground environment "${label}" → population row ${row.quantitative}`,
    ),
    statement:
      `Population density band read from the ground environment: ${shortBand(row.band)} (Table 2, ${TABLE2_SOURCE}). ` +
      (lowerFormBands.length ? 'If you know the density, choose the band; it may be lower.' : 'If you know the density, choose the band.'),
  };
}

/** The ground environments Table 2 maps to one band (the band can be left out with these). */
export const ENVIRONMENTS_WITH_A_BAND: readonly GroundEnvironment[] = GROUND_ENVIRONMENTS.filter((e) => readGround(e).band !== null);

export type GroundAgreementKind = 'agree' | 'documents-differ' | 'disagree';

export interface GroundAgreement {
  readonly kind: GroundAgreementKind;
  /** Null when they agree; otherwise said once, in words, with both sources. */
  readonly message: string | null;
}

/**
 * Whether a ground environment and a population density band describe the same ground, by each
 * document: Table 2 allows the pair when the band is the row of the environment's descriptor (it
 * is silent on an environment it has no descriptor for, unless the band's row carries another
 * environment's descriptor); the forms allow it when they print the band under the environment.
 */
export function compareGroundAndBand(environment: GroundEnvironment, band: PopulationBand): GroundAgreement {
  const words = GROUND_ENVIRONMENT_WORDS[environment];
  const envLabel = GROUND_ENVIRONMENT_LABELS[environment];
  const bandLabel = shortBand(band);
  const envRow = words.table2Descriptor ? rowOfDescriptor(words.table2Descriptor) : null;
  const bandRow = rowOfBand(band);
  const bandClaimedElsewhere = GROUND_ENVIRONMENTS.some(
    (e) =>
      e !== environment &&
      GROUND_ENVIRONMENT_WORDS[e].table2Descriptor !== null &&
      rowOfDescriptor(GROUND_ENVIRONMENT_WORDS[e].table2Descriptor!)?.band === band,
  );
  const table2: boolean | null = envRow ? envRow.band === band : bandClaimedElsewhere ? false : null;
  const forms = formGroup(words.formDescriptor).bands.includes(band);
  if ((table2 ?? true) && forms) return { kind: 'agree', message: null };
  const table2Says =
    envRow && envRow.band !== band && band !== 'controlled' && envRow.band !== 'controlled'
      ? `Table 2 puts "${words.table2Descriptor}" at ${shortBand(envRow.band)}`
      : `Table 2 calls ${shortBand(band)} "${table2Descriptors(band)}"`;
  if (!(table2 ?? false) && !forms) {
    return {
      kind: 'disagree',
      message: `"${envLabel}" and ${bandLabel} describe different grounds: ${table2Says} (${TABLE2_SOURCE}). The calculator uses the band; correct the one that is wrong.`,
    };
  }
  const formsSay = `${FORMS_NAMES} ${forms ? 'allow' : 'do not allow'} this pair (${FORMS_PAGES})`;
  const table2Sentence = `${table2 ? 'Table 2 allows it' : table2Says} (${TABLE2_SOURCE})`;
  return {
    kind: 'documents-differ',
    message: `"${envLabel}" with ${bandLabel}: ${capitalise(forms ? formsSay : table2Sentence)}; ${forms ? table2Sentence : formsSay}. The calculator uses the band.`,
  };
}

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
