/** The questions the app benchmarks ask (bench:app, bench:retrieval-model), and how they time one. */
import type { Page } from 'playwright-core';

export const BENCH_QUESTIONS = [
  'Annex B principles: can the final GRC be lowered below the controlled ground area value?',
  'What does the contingency volume mean and what must the crew do there?',
  'How is the SAIL determined from the final GRC and the residual ARC?',
  'Which OSOs apply at SAIL II?',
  'What is an airspace observer?',
];

/** Milliseconds from submit until the new turn shows its sources (or "no answer"). */
export async function askOn(p: Page, q: string, timeout = 120_000): Promise<number> {
  const turns = await p.getByTestId('turn').count();
  const start = Date.now();
  await p.getByTestId('question-input').fill(q);
  await p.getByTestId('ask-submit').click();
  await p.getByTestId('turn').nth(turns).getByTestId('sources-list').or(p.getByTestId('turn').nth(turns).getByTestId('no-answer')).first().waitFor({ timeout });
  return Date.now() - start;
}
