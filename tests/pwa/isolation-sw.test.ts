/**
 * The service worker's cross-origin isolation for header-less static hosts (src/pwa/isolation-sw.ts):
 * the imported script wraps FetchEvent.respondWith so same-origin responses get COOP/COEP, and leaves
 * alone what the server already isolated, cross-origin and opaque responses.
 */
import { describe, expect, it } from 'vitest';
import { ISOLATION_HEADERS } from '../../src/pwa/csp.js';
import { ISOLATION_SW_SOURCE, isolationSwFileName } from '../../src/pwa/isolation-sw.js';
import { skyCitePwaOptions } from '../../src/pwa/pwa-config.js';

/** A stand-in FetchEvent whose respondWith records what it was given; the script patched onto it. */
function patchedFetchEvent() {
  class FakeFetchEvent {
    given: Promise<Response> | null = null;
    respondWith(r: Promise<Response>) {
      this.given = r;
    }
  }
  new Function('FetchEvent', 'Headers', 'Response', ISOLATION_SW_SOURCE)(FakeFetchEvent, Headers, Response);
  return FakeFetchEvent;
}

/** A Response with a given type (Node's constructor makes only 'default' ones). */
const typed = (type: ResponseType, init: ResponseInit = {}, body: string | null = 'x'): Response => {
  const r = new Response(body, init);
  Object.defineProperty(r, 'type', { value: type });
  return r;
};

async function served(FetchEvent: ReturnType<typeof patchedFetchEvent>, response: Response): Promise<Response> {
  const e = new FetchEvent();
  e.respondWith(Promise.resolve(response));
  return e.given!;
}

describe('cross-origin isolation added by the service worker', () => {
  it('adds COOP same-origin and COEP require-corp to same-origin responses, body and status kept', async () => {
    const FetchEvent = patchedFetchEvent();
    const page = await served(FetchEvent, typed('basic', { status: 200, headers: { 'Content-Type': 'text/html' } }, '<p>SkyCite</p>'));
    expect(page.headers.get('Cross-Origin-Opener-Policy')).toBe(ISOLATION_HEADERS['Cross-Origin-Opener-Policy']);
    expect(page.headers.get('Cross-Origin-Embedder-Policy')).toBe(ISOLATION_HEADERS['Cross-Origin-Embedder-Policy']);
    expect(page.headers.get('Content-Type')).toBe('text/html');
    expect(await page.text()).toBe('<p>SkyCite</p>');
    const missing = await served(FetchEvent, typed('default', { status: 404 }));
    expect(missing.status).toBe(404);
    expect(missing.headers.get('Cross-Origin-Embedder-Policy')).toBe('require-corp');
  });

  it('leaves responses the server isolated, cross-origin and opaque ones as they are', async () => {
    const FetchEvent = patchedFetchEvent();
    const own = typed('basic', { headers: { 'Cross-Origin-Embedder-Policy': 'credentialless' } });
    expect(await served(FetchEvent, own)).toBe(own);
    const cors = typed('cors');
    expect(await served(FetchEvent, cors)).toBe(cors);
    const opaque = typed('opaque');
    expect(await served(FetchEvent, opaque)).toBe(opaque);
  });

  it('patches once, and is imported by the service worker under a content-hashed name', () => {
    const FetchEvent = patchedFetchEvent();
    const once = FetchEvent.prototype.respondWith;
    new Function('FetchEvent', 'Headers', 'Response', ISOLATION_SW_SOURCE)(FetchEvent, Headers, Response);
    expect(FetchEvent.prototype.respondWith).toBe(once);
    const name = isolationSwFileName(() => 'abcdef0123456789');
    expect(name).toBe('isolation-sw-abcdef01.js');
    expect(skyCitePwaOptions({ importScripts: [name] }).workbox?.importScripts).toEqual([name]);
    expect(skyCitePwaOptions({}).workbox?.importScripts).toBeUndefined();
  });
});
