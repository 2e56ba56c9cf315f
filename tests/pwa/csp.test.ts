import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HEADER_CSP, isAssetPath, META_CSP, SECURITY_HEADERS } from '../../src/pwa/csp.js';

describe('the CSP in one place', () => {
  it('index.html carries exactly the policy the servers send (less what only a header can say)', () => {
    const html = readFileSync('index.html', 'utf8');
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    expect(meta).toBe(META_CSP);
    expect(HEADER_CSP).toBe(`${META_CSP}; frame-ancestors 'none'`);
  });

  it('refuses eval, foreign scripts and framing', () => {
    const script = HEADER_CSP.split('; ').find((d) => d.startsWith('script-src'))!;
    expect(script).toBe("script-src 'self' 'wasm-unsafe-eval'");
    expect(HEADER_CSP).not.toMatch(/'unsafe-eval'/);
    expect(SECURITY_HEADERS['X-Frame-Options']).toBe('DENY');
    expect(SECURITY_HEADERS['Content-Security-Policy']).toContain("frame-ancestors 'none'");
  });

  it('treats data and asset paths as files (404 when missing), and app routes as pages', () => {
    for (const p of [
      '/llm/manifest.json',
      '/static-index/vectors.f32',
      '/models/x/onnx/model.onnx',
      '/assets/index-abc.js',
      '/precache-integrity.json',
      '/sw.js',
    ])
      expect(isAssetPath(p)).toBe(true);
    for (const p of ['/', '/ask', '/library/doc']) expect(isAssetPath(p)).toBe(false);
  });
});
