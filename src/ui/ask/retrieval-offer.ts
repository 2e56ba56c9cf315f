/**
 * Whether (and as what) the Ask view offers the downloadable retrieval model
 * (RetrievalModelOffer.svelte): a pure decision over the app's state, so that it is tested
 * without a browser. On a first visit — nothing chosen yet, the built-in model in use, a second
 * model served by this deployment — the card offers the choice between the full offline package
 * (recommended) and the light built-in model; on Save-Data or a metered / cellular connection the
 * full package is neither recommended nor preselected, and the card says why. The choice is stored
 * (settings.retrievalChoice); "Not now" hides the card for the page's lifetime. Once the user starts
 * the download from the card, the card follows that switch (progress, error, then "now searching
 * with …" once); the built-in model answers meanwhile.
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

/** What the browser says of the connection (navigator.connection, where it has one). */
export interface ConnectionInfo {
  /** The user asked the browser to save data (Save-Data). */
  saveData: boolean;
  /** A metered connection, or a cellular one. */
  metered: boolean;
}

/** Why the full package is not recommended now: the user saves data, or pays for it. */
export type DownloadConstraint = 'save-data' | 'metered';

/** navigator.connection (Network Information API; absent in Safari and Firefox: nothing known, nothing held back). */
export function readConnection(nav: { connection?: { saveData?: unknown; type?: unknown; metered?: unknown } | undefined } | undefined): ConnectionInfo {
  const c = nav?.connection;
  return { saveData: c?.saveData === true, metered: c?.metered === true || c?.type === 'cellular' };
}

/** Why a large download should wait, or null when nothing says so. */
export const downloadConstraint = (c: ConnectionInfo | null): DownloadConstraint | null => (c?.saveData ? 'save-data' : c?.metered ? 'metered' : null);

export interface RetrievalOfferInput {
  /** The models on offer (app.retrieval.models). */
  models: readonly OfferedModel[];
  /** The model retrieval uses now (app.status.retrievalModel); null before the index is ready. */
  active: Pick<RetrievalModelStatus, 'id' | 'label' | 'state'> | null;
  /** The state of a switch (app.retrieval.switching). */
  switching: { phase: 'idle' | 'loading' | 'error'; targetId: string | null; error: string | null };
  settings: Pick<Settings, 'retrievalOfferDismissed' | 'retrievalModel' | 'retrievalChoice'>;
  /** The connection now (readConnection); null when unknown. */
  connection: ConnectionInfo | null;
  session: RetrievalOfferSession;
}

export type RetrievalOfferState =
  | { show: 'none' }
  /** The first visit's choice: `recommended` (and preselected) the full package unless `constraint` says why not. */
  | { show: 'choice'; model: OfferedModel; recommended: boolean; preselect: 'full' | 'light'; constraint: DownloadConstraint | null }
  /** The full package was chosen, but is not downloaded yet (the download was interrupted, or left for later). */
  | { show: 'pending'; model: OfferedModel; constraint: DownloadConstraint | null }
  | { show: 'loading'; model: OfferedModel }
  | { show: 'error'; model: OfferedModel; message: string }
  | { show: 'ready'; label: string };

const NONE: RetrievalOfferState = Object.freeze({ show: 'none' });

export function retrievalOfferState(input: RetrievalOfferInput): RetrievalOfferState {
  const { models, active, switching, settings, session } = input;
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
  if (session.notNow || settings.retrievalOfferDismissed || settings.retrievalChoice === 'light') return NONE;
  // a stored model (being restored at start, or failed to) is Settings' business
  if (settings.retrievalModel !== null) return NONE;
  if (!active || active.state !== 'default' || switching.phase === 'loading') return NONE;
  const model = models.find((m) => !m.builtIn);
  if (!model) return NONE;
  const constraint = downloadConstraint(input.connection);
  if (settings.retrievalChoice === 'full') return { show: 'pending', model, constraint };
  return { show: 'choice', model, recommended: constraint === null, preselect: constraint === null ? 'full' : 'light', constraint };
}

/** The card's plain words for why the full package waits. */
export function constraintLine(c: DownloadConstraint): string {
  return c === 'save-data'
    ? 'Save-Data is on in this browser: download it later on Wi-Fi (Settings → Retrieval model).'
    : 'You are on a metered connection: download it later on Wi-Fi (Settings → Retrieval model).';
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
