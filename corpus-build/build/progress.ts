/** Progress with an ETA for long build steps, written to stderr. */
export interface Progress {
  (stage: string, done: number, total: number): void;
}

export function consoleProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  const started = new Map<string, number>();
  let lastPrint = 0;
  return (stage, done, total) => {
    const now = Date.now();
    if (!started.has(stage)) started.set(stage, now);
    if (done < total && now - lastPrint < 1000) return;
    lastPrint = now;
    const elapsed = (now - started.get(stage)!) / 1000;
    const rate = done / Math.max(elapsed, 1e-3);
    const eta = done > 0 ? (total - done) / rate : NaN;
    const pct = total ? ((100 * done) / total).toFixed(0) : '100';
    const etaText = done >= total ? `done in ${elapsed.toFixed(1)} s` : `ETA ${Number.isFinite(eta) ? eta.toFixed(0) : '?'} s`;
    stream.write(`  ${stage}: ${done}/${total} (${pct} %) ${etaText}\n`);
  };
}

export const silentProgress: Progress = () => {};
