/**
 * Table 2 (as captioned) of AMC1 Article 11 — qualitative descriptors of the population density,
 * S.4.2.4 "Identification of the iGRC" (d), p. 26: "If population density values are not available
 * or not accurate, the UAS operator may use qualitative descriptors for the iGRC table; the
 * following approximations may be used as guidance".
 *
 * The two EASA forms group the same words differently, and we say so rather than pick silently:
 *  - EASA Form 208 (application, AMC1 UAS.SPEC.030(2), Step #2.1, pp. 176–177) and EASA Form 209
 *    (operational authorisation, AMC1 UAS.SPEC.040(1), 3.7.1, p. 197) print "sparsely populated
 *    area" against the rows "up to 5", "up to 50" and "up to 500", where Table 2 puts "Sparsely
 *    populated" on the "< 500" row only;
 *  - the forms print "populated area" against "up to 5 000", "up to 50 000" and "more than 50 000",
 *    a phrase Table 2 does not use, and "assemblies of people" against "no limit", where Table 2
 *    has "Assemblies of people" on the "> 50 000" row.
 */
import { EASA_DOC_ID, type SourceRef } from '../types.js';
import type { PopulationBand } from './igrc-table.js';

export interface DescriptorRow {
  readonly band: PopulationBand;
  /** "Quantitative population value" cell as printed (multi-line cells joined by one space). */
  readonly quantitative: string;
  /** The qualitative descriptors printed in the row ("Sparsely populated / Residential lightly populated" → two). */
  readonly descriptors: readonly string[];
  /** "Area description" cell as printed (lines joined by one space). */
  readonly description: string;
  /**
   * Distinctive words of the area description that, written in a question, name this row
   * (e.g. "forests" in the "< 5" row). Only words that occur in one row's description.
   */
  readonly descriptionCues: readonly string[];
}

export const DENSITY_DESCRIPTORS_TABLE = {
  source: {
    docId: EASA_DOC_ID,
    caption: 'Table 2 — Correspondence between quantitative and qualitative assessment of the iGRC',
    page: 26,
    section: 'S.4.2.4',
  } satisfies SourceRef,
  columnLabels: ['Quantitative population value (people/km2)', 'Qualitative descriptors', 'Area description'],
  rows: [
    {
      band: 'controlled',
      quantitative: 'Controlled ground area',
      descriptors: ['Controlled ground', 'Extremely remote'],
      description:
        'Areas that are controlled where uninvolved people are not allowed to enter. Refer to point (21) of Article 2 of Implementing Regulation (EU) 2019/947 and related GM1.',
      descriptionCues: [],
    },
    {
      band: '<5',
      quantitative: '<5',
      descriptors: ['Remote'],
      description:
        'Areas where people may be, such as forests, deserts, large farm parcels, etc. Areas where there is approximately one small building every km2.',
      descriptionCues: ['forests', 'deserts', 'large farm parcels'],
    },
    {
      band: '<50',
      quantitative: '< 50',
      descriptors: ['Lightly populated'],
      description: 'Areas of small farms. Residential areas with very large lots (~ 4 acres or 16 000 m2).',
      descriptionCues: ['small farms'],
    },
    {
      band: '<500',
      quantitative: '< 500',
      descriptors: ['Sparsely populated', 'Residential lightly populated'],
      description: 'Areas comprised of homes and small businesses with large lot sizes (~1 acre or 4 000 m2).',
      descriptionCues: [],
    },
    {
      band: '<5000',
      quantitative: '< 5 000',
      descriptors: ['Suburban', 'Low-density metropolitan'],
      description:
        'Areas of single-family homes on small lots, apartment complexes, commercial buildings, etc. Can contain multistorey buildings, but generally most should be below 3–4 stories.',
      descriptionCues: ['single-family homes', 'apartment complexes'],
    },
    {
      band: '<50000',
      quantitative: '< 50 000',
      descriptors: ['High-density metropolitan'],
      description: 'Areas of mostly large multistorey buildings. The downtown area of most cities. Areas of dense skyscrapers.',
      descriptionCues: ['downtown', 'skyscrapers'],
    },
    {
      band: '>50000',
      quantitative: '> 50 000',
      descriptors: ['Assemblies of people'],
      description: 'Refer to point (3) of Article 2 of Implementing Regulation (EU) 2019/947 and related GM1.',
      descriptionCues: [],
    },
  ] satisfies readonly DescriptorRow[],
} as const;

/** One group of rows in the ground-risk part of an EASA form: a printed descriptor and the density rows printed against it. */
export interface FormDescriptorGroup {
  /** Descriptor as printed in the form. */
  readonly descriptor: string;
  /** Density rows printed against it, as printed. */
  readonly printedRows: readonly string[];
  /** The Table 1 bands those rows correspond to. */
  readonly bands: readonly PopulationBand[];
}

export interface FormDescriptors {
  readonly source: SourceRef;
  /** The item of the form, as printed. */
  readonly item: string;
  readonly groups: readonly FormDescriptorGroup[];
}

const FORM_GROUPS: readonly FormDescriptorGroup[] = [
  { descriptor: 'controlled ground area', printedRows: [], bands: ['controlled'] },
  { descriptor: 'sparsely populated area', printedRows: ['up to 5', 'up to 50', 'up to 500'], bands: ['<5', '<50', '<500'] },
  { descriptor: 'populated area', printedRows: ['up to 5 000', 'up to 50 000', 'more than 50 000'], bands: ['<5000', '<50000', '>50000'] },
  { descriptor: 'assemblies of people', printedRows: ['no limit'], bands: ['>50000'] },
];

/** The operational-area ground risk items of the two EASA forms (same grouping in both). */
export const FORM_DESCRIPTORS: readonly FormDescriptors[] = [
  {
    source: {
      docId: EASA_DOC_ID,
      caption: 'EASA Form 208 — Application for an operational authorisation',
      page: 176,
      lastPage: 177,
      section: 'AMC1 UAS.SPEC.030(2)',
    },
    item: 'Step #2.1 Type of operational areas or maximum population density on the ground',
    groups: FORM_GROUPS,
  },
  {
    source: {
      docId: EASA_DOC_ID,
      caption: 'EASA Form 209 — Operational authorisation',
      page: 197,
      section: 'AMC1 UAS.SPEC.040(1)',
    },
    item: '3.7.1 Operational area (maximum population density)',
    groups: FORM_GROUPS,
  },
];
