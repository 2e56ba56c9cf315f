/**
 * Debian Chromium through playwright-core, launched as the brief prescribes.
 * Fails with an actionable message when Chromium is missing.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const chromiumArgs = (webgpu: boolean) => [
  '--headless',
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  ...(webgpu ? ['--enable-unsafe-webgpu'] : []),
];

/**
 * Chromium with a profile on disk (a temporary user-data folder): the storage quota of a real
 * profile, where a context of launchChromium() keeps its storage in memory (a 327 MB response
 * does not fit in its Cache Storage).
 */
export async function launchPersistentChromium(userDataDir: string, viewport = { width: 1024, height: 768 }): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH}. Install Debian's chromium or set CHROMIUM_PATH.`);
  return chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM_PATH, headless: true, args: chromiumArgs(false), viewport });
}

export async function launchChromium(opts: { webgpu?: boolean } = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}. Install Debian's chromium (apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH.`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: chromiumArgs(!!opts.webgpu),
  });
}

/** Requests of a context to any origin but the app's (data: and blob: URLs are local): the list fills as the pages load. */
export function foreignRequests(context: BrowserContext, origin: string): string[] {
  const foreign: string[] = [];
  context.on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:')) foreign.push(u);
  });
  return foreign;
}

/** Reload the page with the network off, once the service worker controls it (the app then comes from its cache). */
export async function reloadOffline(page: Page, context: BrowserContext): Promise<void> {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  if (!(await page.evaluate(() => Boolean(navigator.serviceWorker.controller)))) await page.reload();
  await page.waitForFunction(() => Boolean(navigator.serviceWorker.controller), null, { timeout: 60_000 });
  await context.setOffline(true);
  await page.reload();
}

/**
 * Wait until a turn's answer is done, then unfold a quoted answer's passages (they sit folded
 * under the quotes) so a test can read the passage cards; resolves once the passages or the
 * no-evidence reply are visible.
 */
export async function answered(turn: Locator, timeout = 240_000): Promise<void> {
  // done, stopped or failed: a failure then shows at the last wait with its page state, not after the whole timeout
  await turn.locator('[data-testid="answer"]:is([data-phase="done"], [data-phase="stopped"], [data-phase="error"])').waitFor({ state: 'attached', timeout });
  const folded = turn.getByTestId('quoted-passages');
  if ((await folded.count()) && (await folded.getAttribute('open')) === null) await folded.locator('summary').click();
  await turn.getByTestId('evidence-passages').or(turn.getByTestId('no-answer')).first().waitFor({ timeout: 30_000 });
}
