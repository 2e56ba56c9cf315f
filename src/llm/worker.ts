/**
 * The Web Worker that hosts WebLLM's engine; engine.ts talks to it through
 * WebWorkerMLCEngine. Kept thin on purpose: it cannot run in Node (no WebGPU, no Worker),
 * so there is nothing here worth unit-testing.
 */
import { WebWorkerMLCEngineHandler } from '@mlc-ai/web-llm';

const handler = new WebWorkerMLCEngineHandler();
self.onmessage = (event: MessageEvent) => {
  handler.onmessage(event);
};
