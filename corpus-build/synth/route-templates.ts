/**
 * Template routing questions written from the calculator's typed tables (src/core/sora/tables), for
 * the router's training folds (`npm run train:router -- --templates N`).
 *
 * For each of the 12 tables the router is trained on, a question gives the table's inputs with
 * values drawn from the table's own rows and columns (sizes and speeds of Table 1's columns,
 * Table 2's descriptors and area descriptions, Table 5's mitigations and levels, the residual ARCs,
 * the SAIL rows and columns, the containment tables' size classes and adjacent-area columns, the
 * OSOs of Table 14) and asks for the value the table gives (`database`), or asks for that value and,
 * in the same message, for text — an obligation, an explanation, a term of the table (`both`);
 * a few questions ask about a term of the table without giving inputs (`rules`).
 *
 * The sentence frames are plain English written for this file from the path definitions of the
 * router (docs/router.md); no evaluation question was read to write them. Pure and deterministic
 * (a seeded generator), so `npm run train:router` is reproducible.
 */
import { seededRandom } from '../../src/core/random.js';
import { CONTAINMENT_TABLES } from '../../src/core/sora/tables/containment-tables.js';
import { DENSITY_DESCRIPTORS_TABLE } from '../../src/core/sora/tables/density-descriptors-table.js';
import { GRC_MITIGATIONS_TABLE } from '../../src/core/sora/tables/grc-mitigations-table.js';
import { IGRC_TABLE } from '../../src/core/sora/tables/igrc-table.js';
import { OSO_TABLE } from '../../src/core/sora/tables/oso-table.js';
import { SAIL_TABLE } from '../../src/core/sora/tables/sail-table.js';
import { TMPR_TABLE } from '../../src/core/sora/tables/tmpr-table.js';
import type { RouteClass } from '../../src/core/route/route-model.js';

export interface TemplateQuestion {
  readonly text: string;
  readonly path: RouteClass;
  /** The table's chunk id (the same ids as route-questions.jsonl: a CV group). */
  readonly table: string;
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

const DOC = 'easa-amc-gm-2019-947/amc1-art11';

/** One table: its chunk id, what it gives (output names), a phrase of its inputs, and terms of it. */
interface TableSpec {
  readonly table: string;
  readonly outputs: readonly string[];
  readonly inputs: (r: Rand) => string;
  readonly terms: readonly string[];
}

// ------------------------------------------------------------------ input phrases from the tables

function dimension(r: Rand, maxM: number): string {
  const m = Math.max(0.2, Math.round(maxM * (0.3 + 0.7 * r()) * 10) / 10);
  return pick(r, [
    `a ${m} m wingspan`,
    `a characteristic dimension of ${m} m`,
    `a ${Math.round(m * 100)} cm rotor diameter`,
    `a maximum dimension of ${m} metres`,
    `${m} m across`,
  ]);
}

function speed(r: Rand, maxMs: number): string {
  const ms = Math.max(5, Math.round(maxMs * (0.4 + 0.6 * r())));
  return pick(r, [`${ms} m/s`, `a top speed of ${ms} m/s`, `${Math.round(ms * 3.6)} km/h`, `max speed ${Math.round(ms * 1.944)} kt`]);
}

const DENSITY_NUMBERS: Readonly<Record<string, readonly number[]>> = {
  '<5': [1, 3, 4],
  '<50': [10, 20, 40],
  '<500': [120, 300, 450],
  '<5000': [800, 2000, 4000],
  '<50000': [8000, 20000, 45000],
  '>50000': [60000, 80000],
};

function ground(r: Rand): string {
  const row = pick(r, DENSITY_DESCRIPTORS_TABLE.rows);
  const numbers = DENSITY_NUMBERS[row.band];
  const options = [`over a ${row.descriptors[0]!.toLowerCase()} area`, `over ${row.descriptors.at(-1)!.toLowerCase()} ground`];
  if (numbers) options.push(`over ${pick(r, numbers)} people per km²`, `with a population density of ${pick(r, numbers)} people/km²`);
  if (row.descriptionCues.length) options.push(`over ${pick(r, row.descriptionCues)}`);
  return pick(r, options);
}

const ARC_WORDS = (arc: string) => [`ARC-${arc}`, `residual ARC ${arc}`, `a residual air risk class ${arc.toUpperCase()}`, `ARC ${arc}`];
const SAIL_WORDS = (s: string) => [`SAIL ${s}`, `a SAIL of ${s}`, `SAIL level ${s}`];
const LEVEL_WORDS = (l: string) => [`at ${l} robustness`, `at a ${l} level of robustness`, `(${l})`];

// ------------------------------------------------------------------ the 12 tables

const CONTAINMENT_CHUNKS = ['table-8', 'table-9', 'table-10', 'table-11', 'table-12', 'table-13'];

function specs(): TableSpec[] {
  const igrc: TableSpec = {
    table: `${DOC}/s4.2.3/table-1`,
    outputs: ['intrinsic GRC', 'iGRC', 'intrinsic ground risk class', 'ground risk class'],
    inputs: (r) => {
      const col = pick(r, IGRC_TABLE.columns);
      return `a drone with ${dimension(r, col.maxDimensionM)} and ${speed(r, col.maxSpeedMs)} ${ground(r)}`;
    },
    terms: ['the iGRC', 'the characteristic dimension', 'the maximum speed', 'the population density'],
  };
  const descriptors: TableSpec = {
    table: `${DOC}/s4.2.4/table-2`,
    outputs: ['qualitative descriptor', 'population density band', 'density row', 'area description'],
    inputs: (r) => {
      const row = pick(r, DENSITY_DESCRIPTORS_TABLE.rows);
      const numbers = DENSITY_NUMBERS[row.band];
      // the table's inputs are a density value or an area's description; a descriptor alone ("a
      // sparsely populated area") is also what a question about the term's meaning gives, so it is not used
      const options = numbers ? [`an area with ${pick(r, numbers)} people per km²`, `${pick(r, numbers)} inhabitants per km²`] : [];
      if (row.descriptionCues.length) options.push(`an area of ${pick(r, row.descriptionCues)}`);
      return options.length ? pick(r, options) : `an area with ${pick(r, [1, 3, 30, 300, 3000, 30000])} people per km²`;
    },
    terms: ['a sparsely populated area', 'a remote area', 'a controlled ground area', 'an assembly of people'],
  };
  const mitigations: TableSpec = {
    table: `${DOC}/s4.3.3/table-5`,
    outputs: ['final GRC', 'GRC reduction', 'GRC credit', 'reduced GRC'],
    inputs: (r) => {
      const row = pick(r, GRC_MITIGATIONS_TABLE.rows);
      const name = row.label.split(' — ')[0]!;
      const level = pick(r, ['low', 'medium', 'high']);
      return `an iGRC of ${2 + Math.floor(r() * 6)} with ${name} ${pick(r, LEVEL_WORDS(level))}`;
    },
    terms: GRC_MITIGATIONS_TABLE.rows.map((row) => row.label.split(' — ')[0]!),
  };
  const tmpr: TableSpec = {
    table: `${DOC}/s4.6.3/table-6`,
    outputs: ['TMPR', 'TMPR level of robustness', 'tactical mitigation performance requirement', 'TMPR robustness'],
    inputs: (r) => `${pick(r, ARC_WORDS(pick(r, TMPR_TABLE.rows).arc))}`,
    terms: ['the TMPR', 'the residual ARC', 'a tactical mitigation'],
  };
  const sail: TableSpec = {
    table: `${DOC}/s4.7.3/table-3`,
    outputs: ['SAIL', 'SAIL level', 'specific assurance and integrity level'],
    inputs: (r) => {
      const row = pick(r, SAIL_TABLE.rows);
      const grc = row.maxGrc === 2 ? pick(r, [1, 2]) : row.maxGrc;
      return `a final GRC of ${grc} and ${pick(r, ARC_WORDS(pick(r, ['a', 'b', 'c', 'd'])))}`;
    },
    terms: ['the SAIL', 'the final GRC', 'the residual ARC'],
  };
  const containment: TableSpec[] = CONTAINMENT_TABLES.map((t, i) => ({
    table: `${DOC}/s4.8.3/${CONTAINMENT_CHUNKS[i]}`,
    outputs: ['containment robustness', 'containment level', 'level of containment', 'containment requirement'],
    inputs: (r) => {
      const col = pick(r, t.columns);
      const row = pick(r, t.rows);
      const adjacent =
        col.density.max === null ? `no density limit on the adjacent area` : `an adjacent area below ${col.density.max.toLocaleString('en')} people/km²`;
      return `a ${t.sizeClass.maxDimensionM} m drone at up to ${t.sizeClass.maxSpeedMs} m/s, ${pick(r, SAIL_WORDS(pick(r, row.sails)))}, ${adjacent}${r() < 0.5 ? ` and ${col.assembliesLabel.toLowerCase()} nearby` : ''}`;
    },
    terms: ['the adjacent ground area', 'the containment requirement', 'the shelter assumption'],
  }));
  const oso: TableSpec = {
    table: `${DOC}/s4.9.3/table-14`,
    outputs: ['robustness level', 'required robustness', 'level of integrity and assurance', 'OSO robustness'],
    inputs: (r) => {
      const row = pick(r, OSO_TABLE.rows);
      return `${pick(r, [row.id, `${row.id} (${row.label.toLowerCase()})`])} at ${pick(r, SAIL_WORDS(pick(r, OSO_TABLE.columns)))}`;
    },
    terms: OSO_TABLE.rows.slice(0, 8).map((row) => row.id),
  };
  return [igrc, descriptors, mitigations, tmpr, sail, ...containment, oso];
}

// ------------------------------------------------------------------ sentence frames

const VALUE_FRAMES: readonly ((out: string, ins: string) => string)[] = [
  (o, i) => `What is the ${o} for ${i}?`,
  (o, i) => `Which ${o} applies to ${i}?`,
  (o, i) => `What ${o} do we get for ${i}?`,
  (o, i) => `Give me the ${o} for ${i}.`,
  (o, i) => `${cap(i)}: what is the ${o}?`,
  (o, i) => `We plan ${i}. Which ${o} is that?`,
  (o, i) => `Look up the ${o} for ${i}.`,
  (o, i) => `What ${o} results from ${i}?`,
  (o, i) => `I fly ${i}. What ${o} do I get?`,
  (o, i) => `Our operation: ${i}. ${cap(o)}?`,
];

/** The text half of a `both` question: an obligation, an explanation, or a term of the table. */
const TEXT_FRAMES: readonly ((out: string, term: string) => string)[] = [
  () => 'and what does that mean for the operator',
  () => 'and what do we have to show the competent authority',
  () => 'and why',
  () => 'and which requirements follow from it',
  () => 'and what evidence is needed at that level',
  (o) => `and how is the ${o} defined`,
  () => 'and what must the operator do next',
  (_o, t) => `and what does ${t} mean`,
  (_o, t) => `and what does the SORA require about ${t}`,
  (o) => `and explain why the ${o} is what it is`,
];

/** Questions about a term of the table without inputs: answered by the text (`rules`). */
const TERM_FRAMES: readonly ((out: string, term: string) => string)[] = [
  (_o, t) => `What does ${t} mean?`,
  (o) => `How is the ${o} determined in the SORA?`,
  (o) => `Why does the ${o} matter for an operational authorisation?`,
  (_o, t) => `Who is responsible for ${t}?`,
];

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** "<value question>, and <text>?" or "<value question>? <Text>?" */
function withText(r: Rand, value: string, text: string): string {
  const head = value.replace(/[?.!]+$/, '');
  return r() < 0.7 ? `${head}, ${text}?` : `${head}? ${cap(text.replace(/^and /, ''))}?`;
}

/** `perTable` questions of each path (`database`, `both`) per table, and `perTable / 4` `rules` questions. */
export function templateRouteQuestions(perTable: number, seed = 1): TemplateQuestion[] {
  const r = seededRandom(seed);
  const out: TemplateQuestion[] = [];
  for (const t of specs()) {
    for (let i = 0; i < perTable; i++) {
      const value = pick(r, VALUE_FRAMES)(pick(r, t.outputs), t.inputs(r));
      out.push({ text: value, path: 'database', table: t.table });
    }
    for (let i = 0; i < perTable; i++) {
      const out1 = pick(r, t.outputs);
      const value = pick(r, VALUE_FRAMES)(out1, t.inputs(r));
      out.push({ text: withText(r, value, pick(r, TEXT_FRAMES)(out1, pick(r, t.terms))), path: 'both', table: t.table });
    }
    for (let i = 0; i < Math.ceil(perTable / 4); i++)
      out.push({ text: pick(r, TERM_FRAMES)(pick(r, t.outputs), pick(r, t.terms)), path: 'rules', table: t.table });
  }
  return out;
}
