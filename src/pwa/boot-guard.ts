/**
 * The app's last line of defence when its own code is damaged: a small classic script, loaded
 * before the app's bundle (vite.config.ts bundles boot-guard-script.ts, which installs this, into
 * one file without imports, emits it as assets/boot-guard-<hash>.js and puts it first in
 * index.html's head), so a damaged bundle cannot take it down too.
 *
 * When a script of this origin fails to parse or load, or the app has not appeared after
 * BOOT_TIMEOUT_MS, it checks the service worker's stored copy of the app's code against the
 * SHA-256 list with the offline copy's one repair (repair.ts: the same check and eviction Settings
 * and the runtime use), deletes what is damaged from every cache and reloads: the service worker
 * then fetches a verified copy. Offline it says so in the page, in words, and reloads when the
 * device is back online. Once per minute at most (no reload loop). It touches Cache Storage only:
 * never IndexedDB (documents, settings, audit log).
 */
import { checkOfflineCopy, evictEverywhere, type RepairEnv } from './repair';

export const BOOT_TIMEOUT_MS = 15_000;

/** sessionStorage key of the last repair's time (this tab). */
export const BOOT_REPAIR_KEY = 'skycite-boot-repair-at';

/** The files that are the app's code (what a damaged copy stops from starting). */
const APP_CODE = /(^|\/)[^/]+\.(js|mjs|css|html)$/;

export const BOOT_MESSAGES = {
  tooSoon:
    'SkyCite could not start: part of its stored copy is damaged and could not be repaired yet. Check the connection and reload the page; your own documents, settings and audit log are kept.',
  offline:
    'Part of SkyCite stored on this device (the app itself) is damaged. SkyCite will repair itself the next time this device is online; your own documents, settings and audit log are not affected.',
} as const;

/** What the guard needs of the page. */
export interface BootGuardHost {
  /** Replace the page's content (#app, else the body) with a message. */
  say(text: string): void;
  /** When this tab last repaired (ms), or null. */
  lastRepair(): number | null;
  rememberRepair(at: number): void;
  now(): number;
  onLine(): boolean | undefined;
  reload(): void;
  /** Call once when the device is back online. */
  whenOnline(reload: () => void): void;
}

export type BootRepair = 'intact' | 'repaired' | 'repaired-offline' | 'too-soon' | 'unavailable';

/**
 * Check the stored copy of the app's code; when part of it is damaged, delete it from every cache
 * and reload (offline: say so, and reload once back online). A repair less than a minute after the
 * last one only says that the copy could not be repaired yet.
 */
export async function repairAppCode(host: BootGuardHost, env: RepairEnv = {}): Promise<BootRepair> {
  const last = host.lastRepair();
  if (last !== null && host.now() - last < 60_000) {
    host.say(BOOT_MESSAGES.tooSoon);
    return 'too-soon';
  }
  const check = await checkOfflineCopy(env, (url) => APP_CODE.test(url));
  if (!check.available) return 'unavailable';
  const damaged = [...check.damaged.map((d) => d.url), ...check.damagedElsewhere.map((d) => d.url)];
  if (!damaged.length) return 'intact'; // one check per page is enough
  await evictEverywhere(damaged, env);
  host.rememberRepair(host.now());
  if (host.onLine() === false) {
    host.say(BOOT_MESSAGES.offline);
    host.whenOnline(() => host.reload());
    return 'repaired-offline';
  }
  host.reload();
  return 'repaired';
}

/** The page's side of the guard. */
function pageHost(win: Window): BootGuardHost {
  return {
    say(text) {
      const root = win.document.getElementById('app') ?? win.document.body;
      if (!root) return;
      const p = win.document.createElement('p');
      p.setAttribute('role', 'alert');
      p.setAttribute('data-testid', 'boot-repair');
      p.style.cssText = 'margin:2rem;font:1.1rem/1.5 system-ui,sans-serif;max-width:40rem';
      p.textContent = text;
      while (root.firstChild) root.removeChild(root.firstChild);
      root.appendChild(p);
    },
    lastRepair() {
      try {
        const last = Number(win.sessionStorage.getItem(BOOT_REPAIR_KEY));
        return Number.isFinite(last) && last > 0 ? last : null;
      } catch {
        return null;
      }
    },
    rememberRepair(at) {
      try {
        win.sessionStorage.setItem(BOOT_REPAIR_KEY, String(at));
      } catch {
        // storage blocked: the minute's limit is this page's only
      }
    },
    now: () => Date.now(),
    onLine: () => win.navigator.onLine,
    reload: () => win.location.reload(),
    whenOnline: (reload) => win.addEventListener('online', reload, { once: true }),
  };
}

/** Watch the page: a script of this origin that fails, or no app after BOOT_TIMEOUT_MS, starts one repair. */
export function installBootGuard(win: Window): void {
  if (!('caches' in win) || !win.crypto?.subtle) return;
  const host = pageHost(win);
  let started = false;
  const repair = () => {
    if (started) return;
    started = true;
    repairAppCode(host, { caches: win.caches, base: win.document.baseURI, onLine: win.navigator.onLine }).catch(() => undefined);
  };
  win.addEventListener(
    'error',
    (ev) => {
      const t = ev.target as { tagName?: string; src?: string } | null;
      const src = (t?.tagName === 'SCRIPT' && t.src) || ev.filename || '';
      if (src.startsWith(`${win.location.origin}/`)) repair();
    },
    true,
  );
  win.addEventListener('load', () => {
    win.setTimeout(() => {
      const root = win.document.getElementById('app');
      if (root && !root.firstElementChild) repair();
    }, BOOT_TIMEOUT_MS);
  });
}
