/**
 * The Ask view's offer of the downloadable retrieval model (src/ui/ask/retrieval-offer.ts):
 * when it shows, when it stays away, and how the card follows a download it started.
 */
import { describe, expect, it } from 'vitest';
import { NEW_OFFER_SESSION, retrievalOfferState, turnShowedEvidence, type RetrievalOfferInput } from '../../src/ui/ask/retrieval-offer.js';
import { downloadPercent } from '../../src/ui/format.js';

const BUILT_IN = {
  id: 'skycite/minilm-skycite',
  label: 'MiniLM (built in)',
  builtIn: true,
  downloadBytes: 0,
  licence: { name: 'Apache-2.0', url: 'u', notice: '' },
};
const GEMMA = {
  id: 'google/embeddinggemma-300m',
  label: 'EmbeddingGemma',
  builtIn: false,
  downloadBytes: 360 * 1024 * 1024,
  licence: { name: 'Gemma Terms of Use', url: 'https://ai.google.dev/gemma/terms', notice: 'notice' },
};

function input(over: Partial<RetrievalOfferInput> = {}): RetrievalOfferInput {
  return {
    models: [BUILT_IN, GEMMA],
    active: { id: BUILT_IN.id, label: BUILT_IN.label, state: 'default' },
    switching: { phase: 'idle', targetId: null, error: null },
    settings: { retrievalOfferDismissed: false, retrievalModel: null },
    answered: true,
    session: { ...NEW_OFFER_SESSION },
    ...over,
  };
}

describe('retrievalOfferState', () => {
  it('offers the downloadable model after an answer while the built-in model is in use', () => {
    expect(retrievalOfferState(input())).toEqual({ show: 'offer', model: GEMMA });
  });

  it('stays away on an empty conversation (no answer with evidence yet)', () => {
    expect(retrievalOfferState(input({ answered: false }))).toEqual({ show: 'none' });
  });

  it('stays away when the deployment offers only the built-in model', () => {
    expect(retrievalOfferState(input({ models: [BUILT_IN] }))).toEqual({ show: 'none' });
    expect(retrievalOfferState(input({ models: [] }))).toEqual({ show: 'none' });
  });

  it('stays away before the index is ready (no active model known)', () => {
    expect(retrievalOfferState(input({ active: null }))).toEqual({ show: 'none' });
  });

  it('stays away while the downloaded model is already in use', () => {
    expect(retrievalOfferState(input({ active: { id: GEMMA.id, label: GEMMA.label, state: 'on' } }))).toEqual({ show: 'none' });
  });

  it('stays away while a switch started elsewhere (Settings, the restore at start) is loading', () => {
    expect(retrievalOfferState(input({ switching: { phase: 'loading', targetId: GEMMA.id, error: null } }))).toEqual({ show: 'none' });
  });

  it('stays away when a choice is stored (it is being restored, or Settings shows why it failed)', () => {
    expect(retrievalOfferState(input({ settings: { retrievalOfferDismissed: false, retrievalModel: GEMMA.id } }))).toEqual({ show: 'none' });
  });

  it('stays away after "Don\'t ask again" (stored) and after "Not now" (this session)', () => {
    expect(retrievalOfferState(input({ settings: { retrievalOfferDismissed: true, retrievalModel: null } }))).toEqual({ show: 'none' });
    expect(retrievalOfferState(input({ session: { ...NEW_OFFER_SESSION, notNow: true } }))).toEqual({ show: 'none' });
  });

  it('follows a download the card started: progress while loading, even before an answer is counted', () => {
    const session = { ...NEW_OFFER_SESSION, startedId: GEMMA.id };
    const state = retrievalOfferState(input({ session, answered: false, switching: { phase: 'loading', targetId: GEMMA.id, error: null } }));
    expect(state).toEqual({ show: 'loading', model: GEMMA });
  });

  it('shows the error of a download the card started, with the model to retry', () => {
    const session = { ...NEW_OFFER_SESSION, startedId: GEMMA.id };
    const state = retrievalOfferState(input({ session, switching: { phase: 'error', targetId: GEMMA.id, error: 'offline' } }));
    expect(state).toEqual({ show: 'error', model: GEMMA, message: 'offline' });
  });

  it('says once that search now uses the downloaded model, until closed', () => {
    const active = { id: GEMMA.id, label: GEMMA.label, state: 'on' as const };
    const started = { ...NEW_OFFER_SESSION, startedId: GEMMA.id };
    expect(retrievalOfferState(input({ active, session: started }))).toEqual({ show: 'ready', label: 'EmbeddingGemma' });
    expect(retrievalOfferState(input({ active, session: { ...started, readyClosed: true } }))).toEqual({ show: 'none' });
  });

  it('goes quiet when the started switch was undone elsewhere (back to the built-in model in Settings)', () => {
    const started = { ...NEW_OFFER_SESSION, startedId: GEMMA.id };
    expect(retrievalOfferState(input({ session: started }))).toEqual({ show: 'none' });
  });
});

describe('turnShowedEvidence', () => {
  const done = { phase: 'done' as const, error: null, noEvidence: null, evidence: null, answer: null };

  it('counts a finished turn with passages (evidence-only) or a generated answer', () => {
    expect(turnShowedEvidence({ ...done, evidence: { passages: [{}] } })).toBe(true);
    expect(turnShowedEvidence({ ...done, answer: { text: 'x' } })).toBe(true);
  });

  it('does not count a running turn, an error, "no evidence" or a turn without passages', () => {
    expect(turnShowedEvidence({ ...done, phase: 'generating', evidence: { passages: [{}] } })).toBe(false);
    expect(turnShowedEvidence({ ...done, error: { summary: 'x' }, evidence: { passages: [{}] } })).toBe(false);
    expect(turnShowedEvidence({ ...done, noEvidence: { why: 'x', detail: '' } })).toBe(false);
    expect(turnShowedEvidence({ ...done, evidence: { passages: [] } })).toBe(false);
  });
});

describe('downloadPercent', () => {
  it('gives the percent of the current file, capped at 100, and null when its size is unknown', () => {
    expect(downloadPercent({ loaded: 50, total: 200 })).toBe(25);
    expect(downloadPercent({ loaded: 300, total: 200 })).toBe(100);
    expect(downloadPercent({ loaded: 5, total: 0 })).toBeNull();
    expect(downloadPercent(null)).toBeNull();
  });
});
