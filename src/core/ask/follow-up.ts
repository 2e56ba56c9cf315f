/**
 * A follow-up as a standalone search, without a model: the new message's own words drive the
 * query, and the previous question supplies only the topic it lacks (its content words the new
 * message does not repeat). "and at night?" after a question about crew training searches
 * "at night" with the training topic, not the previous question again with two words appended.
 * With a model loaded, model-assisted retrieval adds its own rewrite on top (query-assist.ts).
 */
import { contentTokens } from '../text/tokenize.js';

/** Openers that only say "this continues the last question" ("and …", "what about …"). */
const OPENER =
  /^\s*(?:(?:and|but|so|also|ok(?:ay)?|then)\b[\s,]*)*(?:(?:what|how)\s+about|what\s+if|and\s+if|how\s+does\s+that\s+change\s+for|same\s+(?:for|with))?\b[\s,]*/i;
/** Words that ask rather than name a topic. */
const ASKING = new Set([
  'what',
  'which',
  'how',
  'why',
  'when',
  'where',
  'who',
  'does',
  'do',
  'is',
  'are',
  'can',
  'need',
  'needs',
  'required',
  'apply',
  'applies',
  'mean',
  'means',
  'explain',
  'tell',
  'give',
  'list',
  'please',
]);

export interface StandaloneQuery {
  /** What retrieval searches. */
  query: string;
  /** The topic words taken from the previous question (empty when the message names its own). */
  topic: string[];
}

/**
 * A message with fewer content words of its own than this names no topic ("and at night?", "and for a
 * larger one?"); one with more names its own ("and what about multi-crew coordination?") and is searched
 * as it is. Fixed before measuring (a topic takes at least a two-word noun phrase plus the asked aspect).
 */
export const OWN_TOPIC_WORDS = 3;

export function standaloneFollowUp(message: string, previousQuestion: string, rule: 'missing' | 'always' = 'missing'): StandaloneQuery {
  const own = message.replace(OPENER, '').replace(/\s+/g, ' ').trim() || message.trim();
  const ownWords = new Set(contentTokens(own));
  if (rule === 'missing' && ownWords.size >= OWN_TOPIC_WORDS) return { query: own, topic: [] };
  const topic = [...new Set(contentTokens(previousQuestion))].filter((w) => !ownWords.has(w) && !ASKING.has(w));
  return { query: topic.length ? `${own} (${topic.join(' ')})` : own, topic };
}
