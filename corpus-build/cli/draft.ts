/**
 * `npm run draft -- "<hazard, function or operation>" [--format md|json|csv] [--out file] [--corpus id] [--passages N]`:
 * evidence-only safety-requirement drafting. The document agents select up to three
 * documents and their passages; the normative statements (shall / should / must /
 * is required) of those passages are listed verbatim with document, section, pages
 * and chunk id, ranked by relevance and grouped by OSO or mitigation (src/core/agents/requirements.ts).
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_ANSWER_CONFIG } from '../../src/core/answer/config.js';
import { checkGrounding } from '../../src/core/answer/grounding.js';
import { draftToCsv, draftToJson, draftToMarkdown } from '../../src/core/agents/requirements.js';
import { draftRequirementsLocal } from '../../src/core/ask/retrieve.js';
import { draftFromCitedPassages, modelDraftToMarkdown } from '../../src/core/agents/requirements-model.js';
import { createDocumentAgents } from '../../src/core/agents/agents.js';
import { nodeEngine } from '../node/engine.js';
import { questionFilters } from '../node/question-filters.js';

const USAGE = `Usage: npm run draft -- "hazard, function or operation" [options]

Candidate safety requirements, evidence-only: normative statements quoted verbatim from the
passages the document agents select and from the SORA objectives (OSOs) and mitigations whose own
text matches the description; most relevant first, grouped by OSO / mitigation, the current SORA
text before earlier wording (build the index first with npm run index).

  --format md|json|csv   output format (default md)
  --out <file>           write to a file instead of stdout
  --corpus <id>          only this source (easa-amc-gm-2019-947, skysafe-sora-curated)
  --passages <N>         passages taken per document (default 5)
  --model <gguf>         also let this model draft from the same passages (node-llama-cpp on the CPU,
                         4,096-token window); each of its statements is checked against them and an
                         unsupported one is marked (Markdown output only)
  --threads N            CPU threads for the model (default 2)
  -h, --help             this text`;

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      format: { type: 'string', default: 'md' },
      out: { type: 'string' },
      corpus: { type: 'string' },
      passages: { type: 'string', default: '5' },
      model: { type: 'string' },
      threads: { type: 'string', default: '2' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
} catch (e) {
  console.error(`${(e as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
const { values, positionals } = parsed;
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const query = positionals.join(' ').trim();
const format = values.format ?? 'md';
const perDoc = Number(values.passages);
if (!query || !['md', 'json', 'csv'].includes(format) || !Number.isInteger(perDoc) || perDoc < 1) {
  console.error(USAGE);
  process.exit(2);
}
try {
  const { engine, index, embedder } = await nodeEngine();
  const agents = createDocumentAgents(index, engine);
  // the app's drafting (the runtime calls the same core function)
  const draft = await draftRequirementsLocal({ index, engine, agents, queryEmbedder: embedder }, query, {
    filters: questionFilters(query, values.corpus),
    perDocument: perDoc,
  });
  let text = format === 'json' ? draftToJson(draft) : format === 'csv' ? draftToCsv(draft) : draftToMarkdown(draft);
  if (values.model) {
    if (format !== 'md') throw new Error('--model writes Markdown only: leave out --format.');
    const { createLlamaEngine } = await import('../node/llama-engine.js');
    const chat = await createLlamaEngine(values.model, { threads: Number(values.threads), contextSize: 4096 });
    try {
      const byId = new Map(index.chunks.map((c) => [c.id, c]));
      const t0 = performance.now();
      const md = await draftFromCitedPassages(
        {
          getChunk: async (id) => byId.get(id) ?? null,
          check: (answer, ids) =>
            checkGrounding({ answer, chunks: ids.map((id) => byId.get(id)!).filter(Boolean), embedder, config: DEFAULT_ANSWER_CONFIG.grounding }),
          engine: chat,
          contextWindow: 4096,
        },
        draft,
      );
      const supported = md.requirements.filter((r) => r.supported === true).length;
      const none = md.requirements.length ? '' : `\n\nThe model's reply held no list line:\n\n> ${md.raw.trim().replace(/\n/g, '\n> ')}`;
      text += `\n\n${modelDraftToMarkdown(md)}${none}\n\n(${md.requirements.length} drafted by ${values.model.split('/').pop()} in ${((performance.now() - t0) / 1000).toFixed(0)} s; ${supported} supported by their passages)\n`;
    } finally {
      await chat.dispose();
    }
  }
  if (values.out) {
    writeFileSync(values.out, text);
    console.error(`${draft.requirements.length} candidate requirement(s) written to ${values.out}`);
  } else {
    process.stdout.write(text);
  }
} catch (e) {
  console.error((e as Error).message);
  process.exit(1);
}
