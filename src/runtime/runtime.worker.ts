/// <reference lib="webworker" />
/**
 * The retrieval + embedding Web Worker: hosts the in-process runtime and
 * answers RuntimeRequest messages (worker-serve.ts). Errors travel with their class, code and
 * fields (core/errors.ts encodeError; the client rebuilds them, error-classes.ts).
 */
import { createInProcessRuntime } from './in-process.js';
import type { RuntimeReply, RuntimeRequest } from './types.js';
import { loadVoyInBrowser } from './voy-browser.js';
import { serveRuntime } from './worker-serve.js';

// the client sends absolute URLs (resolved against the page); voy's wasm is one of the app's assets
const runtime = createInProcessRuntime({ baseUrl: self.location.href, loadVoy: () => loadVoyInBrowser() });
const serve = serveRuntime(runtime, (reply: RuntimeReply) => (self as unknown as Worker).postMessage(reply));

self.onmessage = (ev: MessageEvent<RuntimeRequest>) => void serve(ev.data);
