/**
 * Retry, in one place: an attempt, and at most `retries` more after a failure the caller deems
 * worth another (`retryable`), each after `delayMs` — cut short when the signal aborts. The answer
 * retries a transient engine failure (answer/generation.ts, AnswerConfig.retry); an indicator run
 * retries a failed or invalid model reply once (indicators/run.ts).
 */

export interface RetryOptions {
  /** Attempts after the first. */
  readonly retries: number;
  /** Pause before each retry (ms; default none). */
  readonly delayMs?: number;
  /** Cuts the pause short (the next attempt sees the abort). */
  readonly signal?: AbortSignal | undefined;
  /** Whether a failure is worth another attempt (default: every failure). */
  readonly retryable?: (error: unknown, attempt: number) => boolean;
  /** Before a retry: `next` is the number of the attempt about to run. */
  readonly onRetry?: (error: unknown, next: number) => void;
}

const pause = (ms: number, signal?: AbortSignal): Promise<void> =>
  ms <= 0
    ? Promise.resolve()
    : new Promise((resolve) => {
        const t = setTimeout(resolve, ms);
        signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
      });

/** Run `attempt` (numbered from 1) until it returns, or throw the failure that is not retried. */
export async function withRetry<T>(attempt: (n: number) => Promise<T>, options: RetryOptions): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (e) {
      if (n > options.retries || !(options.retryable?.(e, n) ?? true)) throw e;
      options.onRetry?.(e, n + 1);
      await pause(options.delayMs ?? 0, options.signal);
    }
  }
}
