import { describe, expect, it } from 'vitest';
import { INDEX_DAMAGED_MESSAGE, INDEX_HOST_MESSAGE, indexProblemForUser, OFFLINE_MESSAGES, offlineStatusText } from '../../src/pwa/offline.js';
import { WorkerReplyError } from '../../src/runtime/client.js';
import { IndexSourceError, problemSource } from '../../src/runtime/errors.js';

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

describe('where the problem is (issue 36, item 5)', () => {
  it('blames the host’s file when the runtime found the server’s copy at fault, this device’s when the stored copy was', () => {
    const cause = named('IndexIntegrityError', 'The static index manifest is not valid JSON (Unexpected token). Rebuild it with `npm run index`.');
    const host = new IndexSourceError('host', cause);
    expect(problemSource(host)).toBe('host');
    expect(indexProblemForUser(host, { onLine: true, controlled: false }, problemSource(host))).toBe(INDEX_HOST_MESSAGE);
    expect(INDEX_HOST_MESSAGE).toMatch(/server/);
    expect(INDEX_HOST_MESSAGE).not.toMatch(/stored on this device (?:failed|is damaged)|npm|SHA/);
    const device = new IndexSourceError('device', cause);
    expect(indexProblemForUser(device, { onLine: true, controlled: true }, problemSource(device))).toBe(INDEX_DAMAGED_MESSAGE);
  });

  it('the source crosses the worker as data (the reply’s error), not in the message', () => {
    const replied = new WorkerReplyError('IndexSourceError', 'The static index manifest is not valid JSON.', 'host');
    expect(problemSource(replied)).toBe('host');
    expect(problemSource(new WorkerReplyError('IndexFetchError', 'Could not fetch'))).toBeNull();
  });

  it('offline, says “working from stored data” only when something is stored', () => {
    expect(offlineStatusText(true)).toBe('working from stored data');
    expect(offlineStatusText(false)).toMatch(/^nothing is stored on this device yet/);
  });
});
