/**
 * SkyCite's Content Security Policy and the other security headers, in one place: index.html
 * carries the policy as a meta tag (any static host), and the servers that can send headers —
 * `vite preview` (npm start) and the dev server, vite.config.ts — send it as a header, so it
 * also governs the Web Workers (a worker takes its policy from its own script's response, never
 * from the page's meta tag) and can forbid framing (`frame-ancestors` is ignored in a meta tag).
 * docs/deployment.md shows the same headers for nginx.
 */

/**
 * Everything from this origin. The only other origins are the generation-model hosts, contacted
 * only when the user asks to download a model (Settings); an authority that self-hosts the models
 * replaces them with its own origin. No 'unsafe-eval': eval and new Function are refused in the
 * page and, through the header, in the workers.
 */
export const CSP_DIRECTIVES: readonly string[] = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self' https://huggingface.co https://*.huggingface.co https://*.hf.co https://raw.githubusercontent.com",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
  "frame-src 'none'",
];

/** The policy of index.html's meta tag (tests/pwa/csp.test.ts keeps the two equal). */
export const META_CSP = CSP_DIRECTIVES.join('; ');

/** The header form: the same policy, plus what only a header can say (no page may frame SkyCite). */
export const HEADER_CSP = `${META_CSP}; frame-ancestors 'none'`;

/**
 * Cross-origin isolation: with both, the page and its workers get SharedArrayBuffer, which
 * onnxruntime-web needs to run the retrieval models on several threads (src/runtime/ort-threads.ts).
 * `require-corp` blocks cross-origin resources loaded without CORS unless they opt in; SkyCite loads
 * none (everything is same-origin, and the model downloads from other hosts are CORS fetches, which
 * it does not affect). Every response needs COEP, the workers' scripts included: a dedicated worker
 * of an isolated page is refused when its own script's response lacks it. Where a host cannot send
 * these headers, the service worker adds them to what it serves (isolation-sw.ts).
 */
export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** Headers for every response of a server that can send them. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': HEADER_CSP,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  ...ISOLATION_HEADERS,
};

/**
 * Paths the preview server must answer with 404 when the file is missing instead of the SPA's
 * index.html (a JSON or binary asset answered with HTML breaks its reader with a misleading
 * parse error): data files and everything under the app's asset folders.
 */
export function isAssetPath(pathname: string): boolean {
  return (
    /\.(?:json|f32|i8|onnx|wasm|mjs|js|css|txt|bin|webmanifest|png|svg|ico|map|gz)$/i.test(pathname) ||
    /^\/(?:static-index|models|ort|llm|assets|icons)\//.test(pathname)
  );
}
