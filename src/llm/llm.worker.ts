/// <reference lib="webworker" />
/**
 * The LLM Web Worker: the only module that imports web-llm. It hosts one MLCEngine
 * (WebGPU) and answers the app's requests (protocol.ts) through worker-host.ts. Its
 * script is not precached: the service worker caches it the first time the user loads a
 * model (src/pwa/pwa-config.ts), so a device that never uses a model never downloads it.
 */
import { MLCEngine } from '@mlc-ai/web-llm';
import type { LlmReply, LlmRequest } from './protocol.js';
import { encodeError } from '../core/errors.js';
import { createWorkerHost, type HostedEngine } from './worker-host.js';

const post = (reply: LlmReply): void => (self as unknown as DedicatedWorkerGlobalScope).postMessage(reply);
const engine = new MLCEngine({ logLevel: 'WARN' });
const handle = createWorkerHost(engine as unknown as HostedEngine, post);

self.addEventListener('message', (ev: MessageEvent<LlmRequest>) => {
  void handle(ev.data);
});
self.addEventListener('unhandledrejection', (ev: PromiseRejectionEvent) => {
  // as thrown: the client reports the crash with it (WorkerCrashedError's detail)
  post({ type: 'fatal', error: encodeError(ev.reason) });
});
