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

/** "Table 2 (AMC & GM to Regulation (EU) 2019/947, S.4.2.4, p. 26)". */
export const TABLE2_WHERE = `${T2.source.caption.split(' — ')[0]} (AMC & GM to Regulation (EU) 2019/947, ${T2.source.section}, p. ${T2.source.page})`;

/** "EASA Form 208 (Step #2.1, pp. 176–177) and EASA Form 209 (3.7.1, p. 197)". */
export const FORMS_WHERE = FORM_DESCRIPTORS.map(
  (f) =>
    `${f.source.caption.split(' — ')[0]} (${/^(?:Step #\S+|\S+)/.exec(f.item)?.[0] ?? f.item}, ${f.source.lastPage ? `pp. ${f.source.page}–${f.source.lastPage}` : `p. ${f.source.page}`})`,
).join(' and ');

const rowOfBand = (band: PopulationBand): DescriptorRow => T2.rows.find((r) => r.band === band) as DescriptorRow;
const rowOfDescriptor = (descriptor: string): DescriptorRow | null => T2.rows.find((r) => (r.descriptors as readonly string[]).includes(descriptor)) ?? null;
const formGroup = (descriptor: string) => FORM.groups.find((g) => g.descriptor === descriptor)!;
const formGroupsOfBand = (band: PopulationBand) => FORM.groups.filter((g) => g.bands.includes(band));

/** What Table 2 calls a band's ground ("Sparsely populated / Residential lightly populated"). */
export function table2Descriptors(band: PopulationBand): string {
  return rowOfBand(band).descriptors.join(' / ');
}

/** The band as the forms print it under a group ("up to 500"), or the group alone where the form prints no number. */
function formPrinting(band: PopulationBand): string {
  return formGroupsOfBand(band)
    .map((g) => {
      const printed = g.printedRows[g.bands.indexOf(band)];
      return printed ? `"${printed}" under "${g.descriptor}"` : `"${g.descriptor}"`;
    })
    .join(' and ');
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
      statement:
        `"${label}" is not one of the descriptors of ${TABLE2_WHERE}; ${FORMS_WHERE} print it against ${g.printedRows.map((r) => `"${r}"`).join(', ')} people/km², ` +
        `${g.printedRows.length} rows of Table 1, so the population density band has to be given.`,
    };
  }
  const g = formGroup(words.formDescriptor);
  const formsWider = g.bands.length > 1 && g.bands.includes(row.band);
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
      `Population density band read from the ground environment: ${TABLE2_WHERE} puts "${words.table2Descriptor}" on the "${row.quantitative}" row ` +
      `(S.4.2.4(d) allows these descriptors when density values are not available).` +
      (formsWider
        ? ` ${FORMS_WHERE} print "${g.descriptor}" against ${g.printedRows.map((r) => `"${r}"`).join(', ')} people/km²; "${row.quantitative}" is the highest of these.`
        : '') +
      ` If the density is known, choose the band.`,
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
  const bandLabel = POPULATION_BAND_LABELS[band];
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
  const table2Reads = `${TABLE2_WHERE} calls "${bandRow.quantitative}" "${table2Descriptors(band)}"${envRow && envRow.band !== band ? ` and puts "${words.table2Descriptor}" on the "${envRow.quantitative}" row` : ''}`;
  const formsRead = `${FORMS_WHERE} print ${formPrinting(band)}`;
  if ((table2 ?? true) && forms) return { kind: 'agree', message: null };
  if (!(table2 ?? false) && !forms) {
    return {
      kind: 'disagree',
      message: `Ground environment "${envLabel}" and population density band "${bandLabel}" describe different grounds: ${table2Reads}; ${formsRead}. The calculator uses the band; correct whichever of the two is wrong.`,
    };
  }
  const allowing = forms ? formsRead : table2Reads;
  const refusing = forms ? table2Reads : formsRead;
  return {
    kind: 'documents-differ',
    message: `Ground environment "${envLabel}" with population density band "${bandLabel}": the documents differ here. ${capitalise(allowing)}, which fits; ${refusing}. The calculator uses the band.`,
  };
}

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
