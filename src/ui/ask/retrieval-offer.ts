/**
 * Whether (and as what) the Ask view offers the downloadable retrieval model
 * (RetrievalModelOffer.svelte): a pure decision over the app's state, so that it is tested
 * without a browser. The offer comes only after an answer with evidence, only while the
 * built-in model is in use and no choice is stored or being made, and never after "Don't ask
 * again"; once the user starts the download from the card, the card follows that switch
 * (progress, error, then "now searching with …" once).
 */
import type { RetrievalModelInfo, RetrievalModelStatus } from '../../runtime/types';
import type { Settings } from '../../storage/settings-store';
import { isFinished, type TurnPhase } from '../../core/ask/turn-state';

/** What the card remembers for the page's lifetime (not stored). */
export interface RetrievalOfferSession {
  /** "Not now": hidden until the app is opened again. */
  notNow: boolean;
  /** The model whose download the card started (null: none). */
  startedId: string | null;
  /** The "now searching with …" line was closed. */
  readyClosed: boolean;
}

export const NEW_OFFER_SESSION: Readonly<RetrievalOfferSession> = Object.freeze({ notNow: false, startedId: null, readyClosed: false });

export type OfferedModel = Pick<RetrievalModelInfo, 'id' | 'label' | 'builtIn' | 'downloadBytes' | 'licence'>;

export interface RetrievalOfferInput {
  /** The models on offer (app.retrieval.models). */
  models: readonly OfferedModel[];
  /** The model retrieval uses now (app.status.retrievalModel); null before the index is ready. */
  active: Pick<RetrievalModelStatus, 'id' | 'label' | 'state'> | null;
  /** The state of a switch (app.retrieval.switching). */
  switching: { phase: 'idle' | 'loading' | 'error'; targetId: string | null; error: string | null };
  settings: Pick<Settings, 'retrievalOfferDismissed' | 'retrievalModel'>;
  /** A turn of this conversation has shown evidence (see turnShowedEvidence). */
  answered: boolean;
  session: RetrievalOfferSession;
}

export type RetrievalOfferState =
  | { show: 'none' }
  | { show: 'offer'; model: OfferedModel }
  | { show: 'loading'; model: OfferedModel }
  | { show: 'error'; model: OfferedModel; message: string }
  | { show: 'ready'; label: string };

const NONE: RetrievalOfferState = Object.freeze({ show: 'none' });

export function retrievalOfferState(input: RetrievalOfferInput): RetrievalOfferState {
  const { models, active, switching, settings, answered, session } = input;
  if (session.startedId !== null) {
    // the card started this download: it follows it to the end
    const model = models.find((m) => m.id === session.startedId);
    if (switching.targetId === session.startedId && model) {
      if (switching.phase === 'loading') return { show: 'loading', model };
      if (switching.phase === 'error') return { show: 'error', model, message: switching.error ?? 'The download failed.' };
    }
    if (switching.phase === 'idle' && active?.id === session.startedId && active.state === 'on') {
      return session.readyClosed ? NONE : { show: 'ready', label: active.label };
    }
    // switched elsewhere since (Settings): nothing more to say here
    return NONE;
  }
  if (!answered || session.notNow || settings.retrievalOfferDismissed) return NONE;
  // a stored choice (being restored at start, or failed to) is Settings' business
  if (settings.retrievalModel !== null) return NONE;
  if (!active || active.state !== 'default' || switching.phase === 'loading') return NONE;
  const model = models.find((m) => !m.builtIn);
  return model ? { show: 'offer', model } : NONE;
}

/** What turnShowedEvidence reads of a turn's state (core/ask/turn-state.ts). */
export interface TurnLike {
  readonly phase: TurnPhase;
  readonly error: unknown;
  readonly noEvidence: unknown;
  /** Evidence-only mode: the passages shown. */
  readonly evidence: { readonly passages: readonly unknown[] } | null;
  /** A generated answer (from retrieved passages). */
  readonly answer: unknown;
}

/** The turn is finished and showed evidence: passages, or an answer generated from them (not an error, not "no evidence"). */
export const turnShowedEvidence = (t: TurnLike): boolean =>
  isFinished(t) && !t.error && !t.noEvidence && ((t.evidence?.passages.length ?? 0) > 0 || (t.answer !== null && t.answer !== undefined));
