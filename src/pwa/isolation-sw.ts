/**
 * Cross-origin isolation on a static host that cannot send headers. The service worker imports this
 * small classic script (vite.config.ts emits it as isolation-sw-<hash>.js; pwa-config.ts lists it in
 * Workbox's `importScripts`). Every same-origin response the service worker answers with — the app's
 * page from the precache on a navigation, the workers' scripts, the ONNX Runtime files — gets
 * `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: require-corp` when the
 * server did not send them. The first visit is not isolated (no service worker controls it yet); from
 * the next load on the page and its workers are, and the retrieval models run on several threads
 * (src/runtime/ort-threads.ts).
 *
 * How: Workbox's router answers with `event.respondWith(promise)`; this script wraps
 * FetchEvent.prototype.respondWith so that promise's response passes through `isolate` first. A
 * response that already carries COEP (npm start, a host configured as in docs/deployment.md),
 * a cross-origin or opaque one, or an error is returned as it is.
 */

/** The script's source (plain ES2017, no module syntax: importScripts loads classic scripts). */
export const ISOLATION_SW_SOURCE = String.raw`/* SkyCite: cross-origin isolation headers added by the service worker (src/pwa/isolation-sw.ts) */
(function () {
  'use strict';
  if (typeof FetchEvent === 'undefined' || !FetchEvent.prototype || FetchEvent.prototype.__skyciteIsolation) return;
  var COOP = 'Cross-Origin-Opener-Policy';
  var COEP = 'Cross-Origin-Embedder-Policy';
  function isolate(response) {
    if (!response || typeof response !== 'object' || !response.headers) return response;
    // same-origin responses only ('basic'; 'default' for one built in the worker); never opaque, CORS or errors
    if (response.type !== 'basic' && response.type !== 'default') return response;
    if (response.status < 200 || response.status > 599) return response;
    if (response.headers.has(COEP)) return response;
    var headers = new Headers(response.headers);
    headers.set(COOP, 'same-origin');
    headers.set(COEP, 'require-corp');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers: headers });
  }
  var respondWith = FetchEvent.prototype.respondWith;
  FetchEvent.prototype.respondWith = function (r) {
    return respondWith.call(this, Promise.resolve(r).then(isolate));
  };
  FetchEvent.prototype.__skyciteIsolation = true;
})();
`;

/** The file name vite.config.ts emits it under (content-hashed: a change updates sw.js too). */
export function isolationSwFileName(hash: (s: string) => string): string {
  return `isolation-sw-${hash(ISOLATION_SW_SOURCE).slice(0, 8)}.js`;
}
