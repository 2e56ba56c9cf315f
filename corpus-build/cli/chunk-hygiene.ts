/**
 * Count the chunks of a built index that fail the hygiene checks (corpus-build/chunking/hygiene.ts):
 * heading-only chunks and chunks whose two-column layout interleaves when read line by line.
 *
 *   npx tsx corpus-build/cli/chunk-hygiene.ts [static-index/chunks.json] [--ids]
 */
import { readFileSync } from 'node:fs';
import { countHygiene } from '../chunking/hygiene.js';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--')) ?? 'static-index/chunks.json';
const chunks = JSON.parse(readFileSync(file, 'utf8')) as { id: string; kind: string; title: string; text: string }[];
const n = countHygiene(chunks);
process.stdout.write(`${file}: ${n.chunks} chunks, heading-only ${n.headingOnly.length}, interleaved columns ${n.interleavedColumns.length}\n`);
if (args.includes('--ids'))
  process.stdout.write(`heading-only:\n  ${n.headingOnly.join('\n  ')}\ninterleaved columns:\n  ${n.interleavedColumns.join('\n  ')}\n`);
