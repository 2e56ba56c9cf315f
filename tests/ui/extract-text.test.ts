/** Text from an added HTML file: through DOMParser (inert), paragraphs kept, scripts and styles dropped. */
import { describe, expect, it } from 'vitest';
import { htmlToText } from '../../src/ui/library/extract-text.js';
import { testWindow } from './dom.js';

describe('HTML as text', () => {
  it('keeps headings and paragraphs as blocks and drops scripts, styles and markup', async () => {
    const w = await testWindow();
    let ran = 0;
    (w as unknown as { __ran: () => void }).__ran = () => ran++;
    const html = `<!doctype html><html><head><title>t</title><style>p{color:red}</style></head><body>
      <h1>Night  flights</h1><p>A <strong>lighting plan</strong> is required.<br>Filed with the office.</p>
      <script>window.__ran()</script><img src=x onerror="window.__ran()">
      <table><tr><th>Zone</th><td>Park</td></tr></table><ul><li>One</li><li>Two</li></ul></body></html>`;
    const text = htmlToText(html, new w.DOMParser());
    expect(text).toBe('Night flights\n\nA lighting plan is required.\nFiled with the office.\n\nZone Park\n\nOne\n\nTwo');
    expect(ran).toBe(0);
    expect(w.document.body.innerHTML).toBe('');
  });
});
