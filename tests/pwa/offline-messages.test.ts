import { describe, expect, it } from 'vitest';
import { INDEX_DAMAGED_MESSAGE, INDEX_HOST_MESSAGE, indexProblemForUser, OFFLINE_MESSAGES, offlineStatusText } from '../../src/pwa/offline.js';
import { decodeError, encodeError } from '../../src/core/errors.js';
import { ModelLoadError } from '../../src/core/embedding/embedder.js';
import { IndexIntegrityError } from '../../src/core/index/manifest.js';
import { RUNTIME_ERROR_CLASSES } from '../../src/runtime/error-classes.js';
import { IndexSourceError, problemSource } from '../../src/runtime/errors.js';
import { IndexFetchError } from '../../src/runtime/fetch-bytes.js';

/** An error as the page receives it from the runtime worker. */
const replied = (e: Error) => decodeError(structuredClone(encodeError(e)), RUNTIME_ERROR_CLASSES);

describe('index failures in the user’s words', () => {
  it('an integrity failure says what happened and what SkyCite does, without developer instructions', () => {
    const e = new IndexIntegrityError(
      'The static index file vectors.f32 does not match its manifest (SHA-256 ab…, expected cd…). Rebuild it with `npm run index`.',
    );
    const text = indexProblemForUser(e, { onLine: true, controlled: true });
    expect(text).toBe(INDEX_DAMAGED_MESSAGE);
    const model = new ModelLoadError('Could not load the embedding model … restore it with `git checkout -- public/models`');
    expect(indexProblemForUser(model, { onLine: true, controlled: true })).toBe(INDEX_DAMAGED_MESSAGE);
    expect(INDEX_DAMAGED_MESSAGE).not.toMatch(/npm|git|SHA|\.f32|public\//);
  });

  it('a network failure before the first full load, and an HTTP error, keep their own messages', () => {
    const offline = replied(new IndexFetchError('Could not fetch static-index/manifest.json (Failed to fetch).', null));
    expect(indexProblemForUser(offline, { onLine: false, controlled: false })).toBe(OFFLINE_MESSAGES['offline-before-first-load']);
    expect(indexProblemForUser(offline, { onLine: true, controlled: true })).toBe(OFFLINE_MESSAGES['index-unreachable']);
    const http = replied(
      new IndexFetchError(
        'Fetching static-index/chunks.json failed with HTTP 404. The deployment is incomplete: redeploy static-index/ as built by npm run index.',
        404,
      ),
    );
    expect(indexProblemForUser(http, { onLine: true, controlled: true })).toBe(`${OFFLINE_MESSAGES['index-http-error']} (HTTP 404)`);
  });
});

describe('where the problem is (issue 36, item 5)', () => {
  it('blames the host’s file when the runtime found the server’s copy at fault, this device’s when the stored copy was', () => {
    const cause = new IndexIntegrityError('The static index manifest is not valid JSON (Unexpected token). Rebuild it with `npm run index`.');
    const host = new IndexSourceError('host', cause);
    expect(problemSource(host)).toBe('host');
    expect(indexProblemForUser(host, { onLine: true, controlled: false }, problemSource(host))).toBe(INDEX_HOST_MESSAGE);
    expect(INDEX_HOST_MESSAGE).toMatch(/server/);
    expect(INDEX_HOST_MESSAGE).not.toMatch(/stored on this device (?:failed|is damaged)|npm|SHA/);
    const device = new IndexSourceError('device', cause);
    expect(indexProblemForUser(device, { onLine: true, controlled: true }, problemSource(device))).toBe(INDEX_DAMAGED_MESSAGE);
  });

  it('the source crosses the worker as data (the reply’s error), not in the message', () => {
    const source = replied(new IndexSourceError('host', new IndexIntegrityError('The static index manifest is not valid JSON.')));
    expect(problemSource(source)).toBe('host');
    expect(problemSource(replied(new IndexFetchError('Could not fetch', null)))).toBeNull();
  });

  it('offline, says “working from stored data” only when something is stored', () => {
    expect(offlineStatusText(true)).toBe('working from stored data');
    expect(offlineStatusText(false)).toMatch(/^nothing is stored on this device yet/);
  });
});
