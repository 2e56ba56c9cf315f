/**
 * The app's last line of defence when its own code is damaged: a tiny classic script, loaded
 * before the app's bundle (vite.config.ts emits it as assets/boot-guard-<hash>.js and puts it
 * first in index.html's head), with no import, so a damaged bundle cannot take it down too.
 *
 * When a script of this origin fails to parse or load, or the app has not appeared after
 * BOOT_TIMEOUT_MS, it checks the service worker's stored copy of the app's code against the
 * SHA-256 list (precache-integrity.json, src/pwa/pwa-config.ts), deletes what is damaged from
 * every cache and reloads: the service worker then fetches a verified copy. Offline it says so in
 * the page, in words, and reloads when the device is back online. Once per minute at most (no
 * reload loop). It touches Cache Storage only: never IndexedDB (documents, settings, audit log).
 */
export const BOOT_TIMEOUT_MS = 15_000;

/** The script's source (plain ES2017, no module syntax). `%TIMEOUT%` is replaced by BOOT_TIMEOUT_MS. */
const SOURCE = String.raw`(function () {
  'use strict';
  var KEY = 'skycite-boot-repair-at';
  var started = false;
  function say(text) {
    var root = document.getElementById('app') || document.body;
    if (!root) return;
    var p = document.createElement('p');
    p.setAttribute('role', 'alert');
    p.setAttribute('data-testid', 'boot-repair');
    p.style.cssText = 'margin:2rem;font:1.1rem/1.5 system-ui,sans-serif;max-width:40rem';
    p.textContent = text;
    while (root.firstChild) root.removeChild(root.firstChild);
    root.appendChild(p);
  }
  function hex(buf) {
    var b = new Uint8Array(buf), s = '';
    for (var i = 0; i < b.length; i++) s += String.fromCharCode(b[i]);
    return 'sha256-' + btoa(s);
  }
  function recent() {
    try {
      var last = Number(sessionStorage.getItem(KEY));
      return isFinite(last) && Date.now() - last < 60000;
    } catch (e) { return false; }
  }
  async function repair(why) {
    if (started || !('caches' in self) || !self.crypto || !crypto.subtle) return;
    started = true;
    if (recent()) {
      say('SkyCite could not start: part of its stored copy is damaged and could not be repaired yet. Check the connection and reload the page; your own documents, settings and audit log are kept.');
      return;
    }
    var names = await caches.keys();
    var pre = names.filter(function (n) { return n.indexOf('workbox-precache-v2-') === 0; })[0];
    if (!pre) return;
    var cache = await caches.open(pre);
    var keys = await cache.keys();
    var listKey = keys.filter(function (r) { return new URL(r.url).pathname.slice(-24) === '/precache-integrity.json'; })[0];
    if (!listKey) return;
    var list;
    try { list = JSON.parse(await (await cache.match(listKey)).text()); } catch (e) { await cache.delete(listKey); list = null; }
    if (!list || !list.entries) return;
    var bad = [];
    for (var i = 0; i < list.entries.length; i++) {
      var e = list.entries[i];
      if (!/(^|\/)[^\/]+\.(js|mjs|css|html)$/.test(e.url)) continue;
      var u = new URL(e.url, document.baseURI);
      if (e.revision) u.searchParams.set('__WB_REVISION__', e.revision);
      var res = await cache.match(u.href);
      if (!res) continue;
      if (hex(await crypto.subtle.digest('SHA-256', await res.arrayBuffer())) !== e.integrity) bad.push(new URL(e.url, document.baseURI).pathname);
    }
    if (!bad.length) return; // intact: one check per page is enough
    for (var n = 0; n < names.length; n++) {
      var c = await caches.open(names[n]);
      var ks = await c.keys();
      for (var k = 0; k < ks.length; k++) if (bad.indexOf(new URL(ks[k].url).pathname) >= 0) await c.delete(ks[k]);
    }
    try { sessionStorage.setItem(KEY, String(Date.now())); } catch (e) {}
    if (navigator.onLine === false) {
      say('Part of SkyCite stored on this device (the app itself) is damaged. SkyCite will repair itself the next time this device is online; your own documents, settings and audit log are not affected.');
      addEventListener('online', function () { location.reload(); }, { once: true });
      return;
    }
    location.reload();
  }
  addEventListener('error', function (ev) {
    var t = ev.target;
    var src = (t && t.tagName === 'SCRIPT' && t.src) || ev.filename || '';
    if (src && src.indexOf(location.origin + '/') === 0) repair('script').catch(function () {});
  }, true);
  addEventListener('load', function () {
    setTimeout(function () {
      var root = document.getElementById('app');
      if (root && !root.firstElementChild) repair('timeout').catch(function () {});
    }, %TIMEOUT%);
  });
})();
`;

export const BOOT_GUARD_SOURCE = SOURCE.replace('%TIMEOUT%', String(BOOT_TIMEOUT_MS));
