/**
 * One persistent Chromium profile per test (issue 36): a test opens the app in a profile of its
 * own, so no test depends on what an earlier one left in Cache Storage or IndexedDB, nor on the
 * order the tests run in. And the helpers the offline-copy tests share: wait for the index,
 * damage cached copies, check them against the build's SHA-256.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { launchPersistentChromium } from './browser.js';

export interface ProfileApp {
  context: BrowserContext;
  /** The first tab, on the app. */
  page: Page;
  /** A second tab on the app in the same profile (another tab of the same user). */
  newTab(hash?: string): Promise<Page>;
  close(): Promise<void>;
}

export const verified = (page: Page, timeout = 240_000): Promise<void> =>
  page
    .getByTestId('index-status')
    .filter({ hasText: /verified/i })
    .waitFor({ timeout });

/**
 * The app at `url` in a fresh persistent profile (deleted on close): `before` runs on the first
 * tab before the app is opened (e.g. a quota), then the index is verified and, with
 * `offlineReady`, the offline copy stored.
 */
export async function openInFreshProfile(
  url: string,
  options: { hash?: string; offlineReady?: boolean; verify?: boolean; before?: (context: BrowserContext, page: Page) => Promise<void> } = {},
): Promise<ProfileApp> {
  const dir = mkdtempSync(join(tmpdir(), 'skycite-profile-'));
  const context = await launchPersistentChromium(dir);
  const open = async (page: Page, hash = options.hash ?? '') => {
    await page.goto(`${url}?device=wasm${hash}`);
    if (options.verify !== false) await verified(page);
    return page;
  };
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await options.before?.(context, page);
    await open(page);
    if (options.offlineReady) await page.getByTestId('offline-ready').waitFor({ timeout: 240_000 });
    return {
      context,
      page,
      newTab: async (hash) => open(await context.newPage(), hash),
      close: async () => {
        await context.close().catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await context.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/**
 * Damage every cached copy (in the caches whose name matches `cacheName`) of the files whose path
 * matches `pathPattern`: `whole` overwrites the file with garbage of the same size, `middle`
 * changes a few bytes in its middle (a file that still parses). Returns the URLs changed.
 */
export function damageCached(page: Page, pathPattern: string, options: { cacheName?: string; how?: 'whole' | 'middle' } = {}): Promise<string[]> {
  return page.evaluate(
    async ({ re, cacheRe, how }) => {
      const changed: string[] = [];
      for (const name of await caches.keys()) {
        if (!new RegExp(cacheRe).test(name)) continue;
        const cache = await caches.open(name);
        for (const req of await cache.keys()) {
          if (!new RegExp(re).test(new URL(req.url).pathname)) continue;
          const old = (await cache.match(req))!;
          const bytes = new Uint8Array(await old.clone().arrayBuffer());
          if (how === 'whole') bytes.fill(0x7b);
          else for (let i = 0; i < 16; i++) bytes[(bytes.length >> 1) + i] = bytes[(bytes.length >> 1) + i]! ^ 0x55;
          await cache.put(req, new Response(bytes, { headers: old.headers }));
          changed.push(`${name} ${req.url}`);
        }
      }
      return changed;
    },
    { re: pathPattern, cacheRe: options.cacheName ?? '.', how: options.how ?? 'whole' },
  );
}

/**
 * Every cached copy (any cache) of a file of the build, checked against the SHA-256 that
 * precache-integrity.json gives it: cache name → intact.
 */
export function cachedCopies(page: Page, path: string): Promise<Record<string, boolean>> {
  return page.evaluate(async (p) => {
    const list = (await (await fetch('precache-integrity.json', { cache: 'no-store' })).json()) as { entries: { url: string; integrity: string }[] };
    const entry = list.entries.find((x) => `/${x.url}` === p);
    if (!entry) throw new Error(`${p} is not in precache-integrity.json`);
    const out: Record<string, boolean> = {};
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const req of await cache.keys()) {
        if (new URL(req.url).pathname !== p) continue;
        const res = (await cache.match(req))!;
        const d = new Uint8Array(await crypto.subtle.digest('SHA-256', await res.arrayBuffer()));
        let bin = '';
        for (const b of d) bin += String.fromCharCode(b);
        out[name] = `sha256-${btoa(bin)}` === entry.integrity;
      }
    }
    return out;
  }, path);
}
