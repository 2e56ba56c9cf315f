import { describe, expect, it } from 'vitest';
import { INDEX_DAMAGED_MESSAGE, indexProblemForUser, OFFLINE_MESSAGES } from '../../src/pwa/offline.js';

const named = (name: string, message: string) => Object.assign(new Error(message), { name });

describe('index failures in the user’s words', () => {
  it('an integrity failure says what happened and what SkyCite does, without developer instructions', () => {
    const e = named(
      'IndexIntegrityError',
      'The static index file vectors.f32 does not match its manifest (SHA-256 ab…, expected cd…). Rebuild it with `npm run index`.',
    );
    const text = indexProblemForUser(e, { onLine: true, controlled: true });
    expect(text).toBe(INDEX_DAMAGED_MESSAGE);
    const model = named('ModelLoadError', 'Could not load the embedding model … restore it with `git checkout -- public/models`');
    expect(indexProblemForUser(model, { onLine: true, controlled: true })).toBe(INDEX_DAMAGED_MESSAGE);
    expect(INDEX_DAMAGED_MESSAGE).not.toMatch(/npm|git|SHA|\.f32|public\//);
  });

  it('a network failure before the first full load, and an HTTP error, keep their own messages', () => {
    const offline = named('IndexFetchError', 'Could not fetch static-index/manifest.json (Failed to fetch).');
    expect(indexProblemForUser(offline, { onLine: false, controlled: false })).toBe(OFFLINE_MESSAGES['offline-before-first-load']);
    expect(indexProblemForUser(offline, { onLine: true, controlled: true })).toBe(OFFLINE_MESSAGES['index-unreachable']);
    const http = named(
      'IndexFetchError',
      'Fetching static-index/chunks.json failed with HTTP 404. The deployment is incomplete: redeploy static-index/ as built by npm run index.',
    );
    expect(indexProblemForUser(http, { onLine: true, controlled: true })).toBe(`${OFFLINE_MESSAGES['index-http-error']} (HTTP 404)`);
  });
});
