/**
 * The Requirements view's model drafting: the app's runtime (chunks, source check) and loaded
 * model adapted to src/core/agents/requirements-model.ts, which does the work.
 */
import type { RequirementDraft } from '../../core/agents/requirements';
import { draftFromCitedPassages, RequirementsDraftError, type ModelDraft } from '../../core/agents/requirements-model';
import type { SkyCiteRuntime } from '../../runtime/types';
import type { AskChat } from '../ask/session.svelte';

export { modelDraftToMarkdown } from '../../core/agents/requirements-model';

export async function draftRequirementsWithModel(
  deps: { runtime: Pick<SkyCiteRuntime, 'getChunk' | 'checkGrounding'>; chat: AskChat | null },
  draft: RequirementDraft,
  signal?: AbortSignal,
): Promise<ModelDraft> {
  const engine = deps.chat?.engine;
  if (!engine) throw new RequirementsDraftError('No language model is loaded. Load one in Settings, or use the evidence-only draft.');
  return draftFromCitedPassages(
    {
      getChunk: (id) => deps.runtime.getChunk(id),
      check: (statement, ids) => deps.runtime.checkGrounding(statement, ids),
      engine,
      contextWindow: deps.chat?.contextWindow ?? 4096,
    },
    draft,
    signal,
  );
}
