/**
 * `npm run eval:follow-ups [-- --file corpus-build/data/follow-ups.jsonl] [--json]`: follow-up questions
 * through the app's Ask turn without a model (src/core/ask/turn.ts): the first question, then the
 * follow-up with the first as the conversation. Hit@5 and MRR of the follow-up's gold section (a chunk
 * id fragment) for each follow-up rule, and how many follow-ups the router recognised as such.
 *
 * The conversations in corpus-build/data/follow-ups.jsonl were written for this from the documents'
 * own section structure (section and OSO titles), not from any evaluation file.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createDocumentAgents } from '../../src/core/agents/agents.js';
import { runTurn, type FollowUpRule } from '../../src/core/ask/turn.js';
import { nodeEngine, nodeRetrieval } from '../node/engine.js';

const { values } = parseArgs({
  options: { file: { type: 'string', default: 'corpus-build/data/follow-ups.jsonl' }, json: { type: 'boolean', default: false } },
});
interface Conversation {
  id: string;
  first: string;
  followUp: string;
  gold: string;
}
const conversations = readFileSync(values.file!, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Conversation);
const loaded = await nodeEngine();
const retrieval = nodeRetrieval(loaded, createDocumentAgents(loaded.index, loaded.engine));
const index = { manifestSha: '' };
const out: Record<string, unknown> = { n: conversations.length };
for (const rule of ['appended', 'topic-always', 'standalone', 'alone'] as const) {
  let hit5 = 0;
  let rr = 0;
  let recognised = 0;
  for (const c of conversations) {
    const first = await runTurn({ question: c.first, index }, { retrieval, model: null });
    const previous = rule === 'alone' ? [] : [{ question: c.first, ...(first.route ? { path: first.route.path } : {}) }];
    const f = await runTurn(
      { question: c.followUp, previous, memory: first.memory, settings: { followUps: rule === 'alone' ? 'standalone' : (rule as FollowUpRule) }, index },
      { retrieval, model: null },
    );
    if (f.prefilter?.cues.followUpOf) recognised++;
    const ids = f.ask?.retrieval.evidence.map((e) => e.id) ?? [];
    const rank = ids.findIndex((id) => id.includes(c.gold)) + 1;
    if (rank >= 1 && rank <= 5) hit5++;
    if (rank >= 1) rr += 1 / rank;
  }
  out[rule] = { 'hit@5': hit5 / conversations.length, mrr: rr / conversations.length, recognisedAsFollowUp: recognised };
}
if (values.json) process.stdout.write(`${JSON.stringify(out)}\n`);
else console.log(JSON.stringify(out, null, 2));
