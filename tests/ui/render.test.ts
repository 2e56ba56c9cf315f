import { beforeAll, describe, expect, it } from 'vitest';
import { createRenderer, insertMarks, MARK_CLOSE, MARK_OPEN, type Renderer } from '../../src/ui/render';
import { testWindow } from './dom';

let r: Renderer;
let win: Window & typeof globalThis;

beforeAll(async () => {
  win = await testWindow();
  r = createRenderer(win);
});

/** Parse rendered HTML into a detached element for structural assertions. */
function dom(html: string): HTMLElement {
  const box = win.document.createElement('div');
  box.innerHTML = html;
  return box;
}

describe('renderMarkdown — sanitization', () => {
  it('never lets a script tag through (raw HTML becomes text)', () => {
    const html = r.renderMarkdown('Hello <script>alert(1)</script> world');
    const el = dom(html);
    expect(el.querySelector('script')).toBeNull();
    expect(el.textContent).toContain('<script>alert(1)</script>');
  });

  it('keeps an <img onerror> typed by a user inert', () => {
    const html = r.renderMarkdown('<img src=x onerror=alert(1)>');
    const el = dom(html);
    expect(el.querySelector('img')).toBeNull();
    expect(el.querySelector('[onerror]')).toBeNull();
    expect(el.textContent).toContain('<img src=x onerror=alert(1)>');
  });

  it('drops event handlers and disallowed tags in sanitized HTML', () => {
    const out = r.sanitize(
      '<p onclick="x()" style="color:red" data-x="1" aria-label="y">a<iframe src="https://e.com"></iframe><img src=x onerror=alert(1)></p>',
    );
    const el = dom(out);
    const p = el.querySelector('p')!;
    expect(p).not.toBeNull();
    expect(p.getAttributeNames()).toEqual([]);
    expect(el.querySelector('iframe, img')).toBeNull();
  });

  it('strips javascript: and external links, keeps in-page anchors', () => {
    const el = dom(r.renderMarkdown('[bad](javascript:alert(1)) [ext](https://example.com) [ok](#s4)'));
    const links = [...el.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['#s4']);
    expect(el.textContent).toContain('bad');
    expect(el.textContent).toContain('ext');
    const raw = dom(r.sanitize('<a href="javascript:alert(1)">x</a><a href=" JaVaScRiPt:alert(1)">y</a><a href="#ok" class="c">z</a>'));
    expect([...raw.querySelectorAll('a')].map((a) => a.getAttribute('href'))).toEqual([null, null, '#ok']);
    expect(raw.querySelector('a.c')).toBeNull(); // class only on span
  });

  it('keeps span classes but no other attribute on span', () => {
    const el = dom(r.sanitize('<span class="k" title="t" id="i">x</span>'));
    const s = el.querySelector('span')!;
    expect(s.getAttributeNames()).toEqual(['class']);
  });

  it('preserves markdown structure', () => {
    const el = dom(r.renderMarkdown('## Answer\n\nThe **operator** must *apply*.\n\n- one\n- two\n\n1. a\n\n> quote\n\n`code`\n\n```\nblock\n```'));
    expect(el.querySelector('h3')?.textContent).toBe('Answer');
    expect(el.querySelector('strong')?.textContent).toBe('operator');
    expect(el.querySelector('em')?.textContent).toBe('apply');
    expect(el.querySelectorAll('ul li')).toHaveLength(2);
    expect(el.querySelectorAll('ol li')).toHaveLength(1);
    expect(el.querySelector('blockquote')).not.toBeNull();
    expect(el.querySelector('code')?.textContent).toBe('code');
    expect(el.querySelector('pre code')?.textContent).toContain('block');
  });

  it('renders tables as preformatted text (no table tags)', () => {
    const el = dom(r.renderMarkdown('| a | b |\n|---|---|\n| 1 | 2 |'));
    expect(el.querySelector('table')).toBeNull();
    expect(el.querySelector('pre')?.textContent).toContain('| 1 | 2 |');
  });
});

describe('renderAnswer — citation buttons and marks', () => {
  it('turns [n] markers into buttons with data attributes and no handlers', () => {
    const el = dom(r.renderAnswer('A drone needs authorisation [1]. See also [2, 3].', { citations: [1, 2, 3] }));
    const buttons = [...el.querySelectorAll('button')];
    expect(buttons.map((b) => b.dataset.cite)).toEqual(['1', '2', '3']);
    for (const b of buttons) {
      expect(b.getAttribute('type')).toBe('button');
      expect(b.className).toBe('cite');
      expect(b.getAttributeNames().filter((n) => n.startsWith('on'))).toEqual([]);
    }
    expect(buttons[0]!.getAttribute('aria-label')).toBe('Source 1');
  });

  it('leaves unknown numbers and markers inside code as text', () => {
    const el = dom(r.renderAnswer('Cited [1], footnote [7], `x[1]`', { citations: [1] }));
    expect(el.querySelectorAll('button')).toHaveLength(1);
    expect(el.textContent).toContain('[7]');
    expect(el.querySelector('code')?.textContent).toBe('x[1]');
  });

  it('does not create buttons from HTML the model wrote', () => {
    const el = dom(r.renderAnswer('<button data-cite="1" onclick="alert(1)">x</button> real [1]', { citations: [1] }));
    const buttons = el.querySelectorAll('button');
    expect(buttons).toHaveLength(1);
    expect(buttons[0]!.getAttribute('onclick')).toBeNull();
  });

  it('wraps marked sentences in span.unsupported with a reason and hidden note', () => {
    const text = 'Supported sentence [1]. Unsupported claim here [1]. End.';
    const start = text.indexOf('Unsupported');
    const end = text.indexOf('End.') - 1;
    const marked = insertMarks(text, [{ start, end }]);
    expect(marked).toContain(MARK_OPEN);
    const el = dom(r.renderAnswer(marked, { citations: [1], marks: [{ reason: 'similarity 0.2 < 0.65' }] }));
    const span = el.querySelector('span.unsupported')!;
    expect(span).not.toBeNull();
    expect(span.textContent).toContain('Unsupported claim here');
    expect(span.textContent).toContain('not supported by the cited source');
    expect(span.getAttribute('title')).toContain('similarity 0.2 < 0.65');
    expect(span.querySelector('button[data-cite="1"]')).not.toBeNull();
    expect(el.textContent).not.toMatch(/[\uE000\uE001]/);
  });

  it('keeps a mark across inline formatting', () => {
    const text = 'The **operator** must apply.';
    const el = dom(r.renderAnswer(insertMarks(text, [{ start: 0, end: text.length }]), { marks: [{ reason: 'r' }] }));
    const spans = el.querySelectorAll('span.unsupported');
    expect(spans.length).toBeGreaterThanOrEqual(2);
    expect([...spans].map((s) => s.textContent).join('')).toContain('operator');
  });

  it('neutralises sentinel characters that came from the model', () => {
    const el = dom(r.renderAnswer(`x ${MARK_OPEN}y${MARK_CLOSE} z`));
    expect(el.querySelector('span.unsupported')).toBeNull();
    expect(insertMarks(`a${MARK_OPEN}b`, [])).toBe('a\uFFFDb');
  });
});
