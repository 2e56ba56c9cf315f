/**
 * The Ask view's choice of the downloadable retrieval model (src/ui/ask/retrieval-offer.ts; issue 33
 * item 4): on a first visit the full offline package is offered as the recommended choice beside the
 * light built-in model, except on Save-Data or a metered connection; when the card shows, when it stays
 * away, and how it follows a download it started.
 */
import { describe, expect, it } from 'vitest';
import {
  constraintLine,
  downloadConstraint,
  NEW_OFFER_SESSION,
  readConnection,
  retrievalOfferState,
  turnShowedEvidence,
  type RetrievalOfferInput,
} from '../../src/ui/ask/retrieval-offer.js';
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
  downloadBytes: 149_370_000,
  licence: { name: 'Gemma Terms of Use', url: 'https://ai.google.dev/gemma/terms', notice: 'notice' },
};
const WIFI = { saveData: false, metered: false };

function input(over: Partial<RetrievalOfferInput> = {}): RetrievalOfferInput {
  return {
    models: [BUILT_IN, GEMMA],
    active: { id: BUILT_IN.id, label: BUILT_IN.label, state: 'default' },
    switching: { phase: 'idle', targetId: null, error: null },
    settings: { retrievalOfferDismissed: false, retrievalModel: null, retrievalChoice: null },
    connection: WIFI,
    session: { ...NEW_OFFER_SESSION },
    ...over,
  };
}

describe('the first visit’s choice of the search model', () => {
  it('offers the full package as the recommended, preselected choice on a first visit, before any question', () => {
    expect(retrievalOfferState(input())).toEqual({ show: 'choice', model: GEMMA, recommended: true, preselect: 'full', constraint: null });
    // nothing known of the connection (Safari, Firefox): nothing held back
    expect(retrievalOfferState(input({ connection: null }))).toMatchObject({ show: 'choice', recommended: true, preselect: 'full' });
  });

  it('neither recommends nor preselects it on Save-Data or a metered / cellular connection, and says why', () => {
    expect(retrievalOfferState(input({ connection: { saveData: true, metered: false } }))).toEqual({
      show: 'choice',
      model: GEMMA,
      recommended: false,
      preselect: 'light',
      constraint: 'save-data',
    });
    expect(retrievalOfferState(input({ connection: { saveData: false, metered: true } }))).toMatchObject({ recommended: false, constraint: 'metered' });
    expect(constraintLine('save-data')).toBe('Save-Data is on in this browser: download it later on Wi-Fi (Settings → Retrieval model).');
    expect(constraintLine('metered')).toBe('You are on a metered connection: download it later on Wi-Fi (Settings → Retrieval model).');
  });

  it('reads the connection from navigator.connection: Save-Data, a metered flag, a cellular type', () => {
    expect(readConnection({ connection: { saveData: true, type: 'wifi' } })).toEqual({ saveData: true, metered: false });
    expect(readConnection({ connection: { saveData: false, type: 'cellular' } })).toEqual({ saveData: false, metered: true });
    expect(readConnection({ connection: { metered: true } })).toEqual({ saveData: false, metered: true });
    expect(readConnection({})).toEqual(WIFI);
    expect(readConnection(undefined)).toEqual(WIFI);
    expect(downloadConstraint({ saveData: true, metered: true })).toBe('save-data');
    expect(downloadConstraint(null)).toBeNull();
  });

  it('remembers the choice: the light model asks no more; the full one, chosen but not downloaded, waits with "Download now"', () => {
    const settings = (retrievalChoice: 'full' | 'light' | null) => ({ retrievalOfferDismissed: false, retrievalModel: null, retrievalChoice });
    expect(retrievalOfferState(input({ settings: settings('light') }))).toEqual({ show: 'none' });
    expect(retrievalOfferState(input({ settings: settings('full') }))).toEqual({ show: 'pending', model: GEMMA, constraint: null });
    expect(retrievalOfferState(input({ settings: settings('full'), connection: { saveData: false, metered: true } }))).toMatchObject({
      show: 'pending',
      constraint: 'metered',
    });
  });

  it('stays away when the deployment serves only the built-in model', () => {
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

  it('stays away when a model is stored (it is being restored, or Settings shows why it failed)', () => {
    expect(retrievalOfferState(input({ settings: { retrievalOfferDismissed: false, retrievalModel: GEMMA.id, retrievalChoice: 'full' } }))).toEqual({
      show: 'none',
    });
  });

  it('stays away after "Don\'t ask again" (stored before the choice existed) and after "Decide later" (this session)', () => {
    expect(retrievalOfferState(input({ settings: { retrievalOfferDismissed: true, retrievalModel: null, retrievalChoice: null } }))).toEqual({
      show: 'none',
    });
    expect(retrievalOfferState(input({ session: { ...NEW_OFFER_SESSION, notNow: true } }))).toEqual({ show: 'none' });
  });

  it('follows a download the card started: progress while loading', () => {
    const session = { ...NEW_OFFER_SESSION, startedId: GEMMA.id };
    const state = retrievalOfferState(input({ session, switching: { phase: 'loading', targetId: GEMMA.id, error: null } }));
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
