/**
 * Separating a model's reasoning trace from its answer (SKYSAFE §2.7.2: the
 * trace is stored for audit, never treated as evidence). Two forms occur:
 * - `<think>…</think>` blocks inside the content (Qwen3, DeepSeek-R1 distills in
 *   WebLLM; with `enable_thinking: false` WebLLM prepends an empty block);
 * - a separate `reasoning_content` delta field (OpenAI-compatible servers),
 *   handled by the caller, which routes it straight to the reasoning channel.
 *
 * The splitter works on a stream: a tag may be split across deltas, so a tail
 * that could be the start of a tag is held back until the next delta.
 */

const OPEN = '<think>';
const CLOSE = '</think>';

export interface SplitDelta {
  answer: string;
  reasoning: string;
}

/** Length of the longest suffix of `s` that is a proper prefix of `tag`. */
function partialTagTail(s: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, s.length); n > 0; n--) if (tag.startsWith(s.slice(-n))) return n;
  return 0;
}

export class ThinkSplitter {
  private inThink = false;
  private pending = '';
  private sawOpen = false;
  private sawCloseWithoutOpen = false;

  /** Feed one content delta; returns the answer and reasoning text it releases. */
  push(delta: string): SplitDelta {
    let buf = this.pending + delta;
    this.pending = '';
    const out: SplitDelta = { answer: '', reasoning: '' };
    for (;;) {
      const tag = this.inThink ? CLOSE : OPEN;
      const other = this.inThink ? null : CLOSE;
      const at = buf.indexOf(tag);
      // a stray "</think>" with no opening tag: the template opened the block in the prompt
      const strayAt = other !== null ? buf.indexOf(other) : -1;
      if (strayAt >= 0 && (at < 0 || strayAt < at)) {
        out.answer += buf.slice(0, strayAt);
        this.sawCloseWithoutOpen = true;
        buf = buf.slice(strayAt + CLOSE.length);
        continue;
      }
      if (at < 0) {
        const hold = Math.max(partialTagTail(buf, tag), other !== null ? partialTagTail(buf, other) : 0);
        const emit = buf.slice(0, buf.length - hold);
        this.pending = buf.slice(buf.length - hold);
        if (this.inThink) out.reasoning += emit;
        else out.answer += emit;
        return out;
      }
      if (this.inThink) out.reasoning += buf.slice(0, at);
      else {
        out.answer += buf.slice(0, at);
        this.sawOpen = true;
      }
      this.inThink = !this.inThink;
      buf = buf.slice(at + tag.length);
    }
  }

  /** End of stream: release anything held back (an unterminated block stays reasoning). */
  flush(): SplitDelta {
    const rest = this.pending;
    this.pending = '';
    return this.inThink ? { answer: '', reasoning: rest } : { answer: rest, reasoning: '' };
  }

  /** True when a closing tag appeared before any opening tag (see `splitReasoning`). */
  get closedWithoutOpening(): boolean {
    return this.sawCloseWithoutOpen && !this.sawOpen;
  }
}

/**
 * Split a complete text. If the text has a "</think>" before any "<think>", the
 * chat template opened the block inside the prompt, so everything before the
 * first "</think>" is reasoning.
 */
export function splitReasoning(text: string): SplitDelta {
  const firstClose = text.indexOf(CLOSE);
  const firstOpen = text.indexOf(OPEN);
  let reasoning = '';
  if (firstClose >= 0 && (firstOpen < 0 || firstClose < firstOpen)) {
    reasoning = text.slice(0, firstClose);
    text = text.slice(firstClose + CLOSE.length);
  }
  const s = new ThinkSplitter();
  const a = s.push(text);
  const b = s.flush();
  return { answer: a.answer + b.answer, reasoning: joinReasoning(reasoning, a.reasoning + b.reasoning) };
}

function joinReasoning(a: string, b: string): string {
  return [a.trim(), b.trim()].filter(Boolean).join('\n\n');
}
