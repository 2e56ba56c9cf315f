/**
 * A follow-up as a standalone search, without a model: the new message's own words drive the
 * query, and the conversation supplies only the topic it lacks (its content words the new
 * message does not repeat). "and at night?" after a question about crew training searches
 * "at night" with the training topic, not the previous question again with two words appended.
 * The topic carries across turns until a message names its own: "and for BVLOS?" after "and at
 * night?" still searches with the crew-training topic (not with "night").
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
  /** The topic words taken from the conversation (empty when the message names its own). */
  topic: string[];
}

/** The words of a message that name its topic: its content words, without the words that only ask. */
export function topicWords(text: string): string[] {
  return [...new Set(contentTokens(text.replace(OPENER, ' ')))].filter((w) => !ASKING.has(w));
}

/**
 * A message with fewer content words of its own than this names no topic ("and at night?", "and for a
 * larger one?"); one with more names its own ("and what about multi-crew coordination?") and is searched
 * as it is. Fixed before measuring (a topic takes at least a two-word noun phrase plus the asked aspect).
 */
export const OWN_TOPIC_WORDS = 3;

/**
 * `previous`: the previous question (its topic words are taken), or the topic the conversation
 * carried into the previous turn (`{ topic }`, what {@link conversationTopic} returned for it).
 */
export function standaloneFollowUp(
  message: string,
  previous: string | { readonly topic: readonly string[] },
  rule: 'missing' | 'always' = 'missing',
): StandaloneQuery {
  const own = message.replace(OPENER, '').replace(/\s+/g, ' ').trim() || message.trim();
  const ownWords = new Set(contentTokens(own));
  if (rule === 'missing' && ownWords.size >= OWN_TOPIC_WORDS) return { query: own, topic: [] };
  const carried = typeof previous === 'string' ? topicWords(previous) : previous.topic;
  const topic = [...new Set(carried)].filter((w) => !ownWords.has(w) && !ASKING.has(w));
  return { query: topic.length ? `${own} (${topic.join(' ')})` : own, topic };
}

/**
 * The topic a turn carries on to the next: the conversation's topic it came in with (`carriedIn`) when
 * it took its topic from there (a follow-up that names none), else the topic words of its own message.
 */
export function conversationTopic(message: string, followUp: StandaloneQuery | null, carriedIn: readonly string[]): string[] {
  return followUp && followUp.topic.length ? [...carriedIn] : topicWords(message);
}
