/**
 * Reading JSON out of a model's reply, in one place for every caller (router verdicts, indicator
 * outputs, condensation notes, query assistance, structured answers). Models wrap JSON in
 * reasoning blocks and code fences, and a reply cut off by the token limit or a stop ends
 * mid-object: the complete part is still read (partial-json), never a half-written string.
 */
import { Allow, parse as parsePartial } from 'partial-json';

/** Removes reasoning blocks and code-fence markers that models wrap around JSON. */
export function stripWrappers(raw: string): string {
  return raw
    .replace(/<think>[\s\S]*?<\/think>/gi, ' ')
    .replace(/<\|channel\|>analysis[\s\S]*?<\|end\|>/g, ' ')
    .replace(/```[a-zA-Z]*\s*/g, ' ');
}

/** End index (inclusive) of the balanced `{…}` starting at `start`, honouring JSON strings; -1 if none. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/**
 * The first JSON object in a model's output (prose, code fences and reasoning blocks around it are
 * ignored). `found: false` when there is no `{`, `parsed: false` when no balanced candidate parses.
 */
export function extractFirstJsonObject(
  raw: string,
): { found: false } | { found: true; parsed: false; text: string } | { found: true; parsed: true; value: unknown; text: string } {
  const text = stripWrappers(raw);
  let start = text.indexOf('{');
  if (start < 0) return { found: false };
  let firstCandidate: string | null = null;
  while (start >= 0) {
    const end = balancedEnd(text, start);
    if (end < 0) break;
    const candidate = text.slice(start, end + 1);
    firstCandidate ??= candidate;
    try {
      return { found: true, parsed: true, value: JSON.parse(candidate) as unknown, text: candidate };
    } catch {
      start = text.indexOf('{', start + 1);
    }
  }
  return { found: true, parsed: false, text: firstCandidate ?? text.slice(text.indexOf('{')) };
}

/**
 * The JSON object of a reply: the first balanced object that parses (`complete: true`), or else the
 * object the reply starts and never closes, read up to its last complete value (`complete: false`:
 * strings cut off mid-way are left out unless `partialStrings`). Null when the reply holds no usable object.
 */
export function parseReplyJson(raw: string, opts: { partialStrings?: boolean } = {}): { value: Record<string, unknown>; complete: boolean } | null {
  const first = extractFirstJsonObject(raw);
  if (!first.found) return null;
  if (first.parsed) return isObject(first.value) ? { value: first.value, complete: true } : null;
  const text = stripWrappers(raw);
  try {
    // a string cut off mid-way is left out, unless the caller shows unfinished text as such (a progress line)
    const value: unknown = parsePartial(text.slice(text.indexOf('{')), Allow.OBJ | Allow.ARR | (opts.partialStrings ? Allow.STR : 0));
    return isObject(value) ? { value, complete: false } : null;
  } catch {
    return null;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
