/**
 * The only way text from documents or models becomes HTML.
 *
 * renderMarkdown(text): marked (raw HTML in the source is escaped, never passed through;
 * images become their alt text; links keep only in-page "#…" targets; tables become
 * preformatted text) → DOMPurify with a strict allow-list:
 *   p, ul, ol, li, strong, em, code, pre, h3, h4, blockquote, a (href starting with "#"), span (class).
 * No other tag or attribute survives (no data-*, aria-*, style, event handlers, URLs).
 *
 * renderAnswer(text, options): the same, then a DOM post-processing pass over the sanitized
 * tree that turns "[n]" citation markers into <button data-cite="n"> elements and wraps the
 * sentences flagged by the grounding check (delimited by private-use sentinels inserted by
 * `insertMarks`) in <span class="unsupported">. Elements are created with DOM APIs and
 * `textContent`, never from strings, and buttons carry data attributes only (the click is
 * handled by a delegated listener), so nothing here can execute.
 */
import createDOMPurify, { type Config, type DOMPurify } from 'dompurify';
import { Marked, type Tokens } from 'marked';

export const ALLOWED_TAGS = ['p', 'ul', 'ol', 'li', 'strong', 'em', 'code', 'pre', 'h3', 'h4', 'blockquote', 'a', 'span'] as const;

/** Which attribute each allowed tag may keep. */
const ALLOWED_ATTRS_BY_TAG: Readonly<Record<string, readonly string[]>> = { a: ['href'], span: ['class'] };

const PURIFY_CONFIG: Config = {
  ALLOWED_TAGS: [...ALLOWED_TAGS],
  ALLOWED_ATTR: ['href', 'class'],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  // Only in-page anchors: "#section". Anything else (javascript:, data:, http:) is dropped.
  ALLOWED_URI_REGEXP: /^#/,
  KEEP_CONTENT: true,
};

/** Sentinels that delimit a sentence flagged by the grounding check (Unicode private use area). */
export const MARK_OPEN = '\uE000';
export const MARK_CLOSE = '\uE001';
const SENTINELS = /[\uE000\uE001]/g;

/** The visually hidden text after a flagged sentence (screen readers, print). */
export const UNSUPPORTED_NOTE = 'not supported by the cited source';

const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

function createMarked(): Marked {
  const md = new Marked({ gfm: true, breaks: false, async: false });
  md.use({
    renderer: {
      // Raw HTML in the markdown source is shown as text, never interpreted.
      html({ text }: Tokens.HTML | Tokens.Tag): string {
        return escapeHtml(text);
      },
      image({ text }: Tokens.Image): string {
        return escapeHtml(text);
      },
      heading({ tokens, depth }: Tokens.Heading): string {
        const level = depth <= 3 ? 3 : 4;
        return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`;
      },
      link({ href, tokens }: Tokens.Link): string {
        const inner = this.parser.parseInline(tokens);
        return href.startsWith('#') ? `<a href="${escapeHtml(href)}">${inner}</a>` : inner;
      },
      table(token: Tokens.Table): string {
        return `<pre><code>${escapeHtml(token.raw.trimEnd())}</code></pre>\n`;
      },
    },
  });
  return md;
}

export interface AnswerMark {
  /** Why the sentence is flagged (shown as a tooltip). */
  reason: string;
}

export interface AnswerRenderOptions {
  /** Citation numbers that exist; "[n]" with another number stays text. Default: any number. */
  citations?: Iterable<number>;
  /** One entry per MARK_OPEN sentinel in the text, in text order (see insertMarks). */
  marks?: readonly AnswerMark[];
}

export interface Renderer {
  /** Markdown → sanitized HTML string. */
  renderMarkdown(text: string): string;
  /** Markdown with "[n]" citations and grounding sentinels → sanitized HTML with citation buttons and marks. */
  renderAnswer(text: string, options?: AnswerRenderOptions): string;
  /** Sanitize an HTML string with the same allow-list (exposed for tests). */
  sanitize(html: string): string;
}

type WindowLike = Window & typeof globalThis;

/** A renderer bound to a window (the browser's, or a test DOM's). */
export function createRenderer(win: WindowLike): Renderer {
  const purify: DOMPurify = createDOMPurify(win);
  purify.addHook('uponSanitizeAttribute', (node, data) => {
    const allowed = ALLOWED_ATTRS_BY_TAG[node.nodeName.toLowerCase()] ?? [];
    if (!allowed.includes(data.attrName)) data.keepAttr = false;
  });
  const md = createMarked();
  const doc = win.document;

  const toHtml = (text: string): string => md.parse(text, { async: false }) as string;

  function sanitizeToFragment(html: string): DocumentFragment {
    return purify.sanitize(html, { ...PURIFY_CONFIG, RETURN_DOM_FRAGMENT: true }) as unknown as DocumentFragment;
  }

  function serialize(frag: DocumentFragment): string {
    const box = doc.createElement('div');
    box.appendChild(frag);
    return box.innerHTML;
  }

  function citationButton(n: number): HTMLButtonElement {
    const b = doc.createElement('button');
    b.type = 'button';
    b.className = 'cite';
    b.dataset.cite = String(n);
    b.dataset.testid = 'citation';
    b.setAttribute('aria-label', `Source ${n}`);
    b.textContent = `[${n}]`;
    return b;
  }

  function postProcess(frag: DocumentFragment, options: AnswerRenderOptions): void {
    const valid = options.citations ? new Set(options.citations) : null;
    const marks = options.marks ?? [];
    const walker = doc.createTreeWalker(frag, win.NodeFilter.SHOW_TEXT);
    const nodes: Text[] = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n as Text);
    let markIndex = -1;
    let inMark = false;
    const TOKEN = /(\uE000|\uE001|\[\s*\d+(?:\s*,\s*\d+)*\s*\])/;
    for (const node of nodes) {
      const text = node.data;
      if (!TOKEN.test(text) && !inMark) continue;
      const inCode = node.parentElement?.closest('code, pre') != null;
      const out = doc.createDocumentFragment();
      const markSpan = (): HTMLSpanElement => {
        const s = doc.createElement('span');
        s.className = 'unsupported';
        s.dataset.testid = 'unsupported-sentence';
        const reason = marks[markIndex]?.reason;
        s.title = `Not supported by the cited source${reason ? `: ${reason}` : ''}`;
        return s;
      };
      let current: HTMLSpanElement | null = inMark ? markSpan() : null;
      const append = (child: Node): void => {
        if (current) current.appendChild(child);
        else out.appendChild(child);
      };
      for (const part of text.split(TOKEN)) {
        if (part === '') continue;
        if (part === MARK_OPEN) {
          if (current) out.appendChild(current);
          markIndex++;
          inMark = true;
          current = markSpan();
        } else if (part === MARK_CLOSE) {
          if (current) {
            current.classList.add('unsupported-end');
            const hidden = doc.createElement('span');
            hidden.className = 'visually-hidden';
            hidden.textContent = ` (${UNSUPPORTED_NOTE})`;
            current.appendChild(hidden);
            out.appendChild(current);
          }
          current = null;
          inMark = false;
        } else if (!inCode && /^\[\s*\d/.test(part)) {
          const nums = part
            .slice(1, -1)
            .split(',')
            .map((s) => Number(s.trim()));
          if (valid && !nums.every((n) => valid.has(n))) append(doc.createTextNode(part));
          else nums.forEach((n) => append(citationButton(n)));
        } else {
          append(doc.createTextNode(part));
        }
      }
      if (current) out.appendChild(current);
      node.replaceWith(out);
    }
  }

  return {
    sanitize(html) {
      return purify.sanitize(html, PURIFY_CONFIG) as unknown as string;
    },
    renderMarkdown(text) {
      return serialize(sanitizeToFragment(toHtml(text.replace(SENTINELS, '\uFFFD'))));
    },
    renderAnswer(text, options = {}) {
      // Without marks, sentinels in the text are not ours: neutralise them.
      const source = options.marks ? text : text.replace(SENTINELS, '\uFFFD');
      const frag = sanitizeToFragment(toHtml(source));
      postProcess(frag, options);
      return serialize(frag);
    },
  };
}

let browserRenderer: Renderer | null = null;
function defaultRenderer(): Renderer {
  if (!browserRenderer) {
    const win = (globalThis as { window?: WindowLike }).window;
    // a programming error (called outside a page without a renderer): nothing can catch it meaningfully
    // eslint-disable-next-line skycite/typed-errors
    if (!win) throw new Error('renderMarkdown needs a DOM window');
    browserRenderer = createRenderer(win);
  }
  return browserRenderer;
}

/** Markdown → sanitized HTML (browser window). */
export function renderMarkdown(text: string): string {
  return defaultRenderer().renderMarkdown(text);
}

/** Answer markdown → sanitized HTML with citation buttons and grounding marks (browser window). */
export function renderAnswer(text: string, options?: AnswerRenderOptions): string {
  return defaultRenderer().renderAnswer(text, options);
}

/**
 * Insert MARK_OPEN / MARK_CLOSE around the given ranges of `text` (ranges must not overlap).
 * Sentinel characters already in the text are replaced first (same length, so offsets hold).
 */
export function insertMarks(text: string, ranges: readonly { start: number; end: number }[]): string {
  let out = text.replace(SENTINELS, '\uFFFD');
  const sorted = [...ranges].sort((a, b) => b.start - a.start);
  for (const r of sorted) {
    if (r.start < 0 || r.end > out.length || r.end <= r.start) continue;
    out = out.slice(0, r.start) + MARK_OPEN + out.slice(r.start, r.end) + MARK_CLOSE + out.slice(r.end);
  }
  return out;
}
