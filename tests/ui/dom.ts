/**
 * A DOM window for tests of render.ts (DOMPurify needs one). jsdom is a test-only
 * dependency; it is imported by name so type-checking does not need its type package.
 */
type TestWindow = Window & typeof globalThis;
interface JsdomModule {
  JSDOM: new (html?: string) => { window: TestWindow };
}

export async function testWindow(): Promise<TestWindow> {
  const name = 'jsdom';
  const mod = (await import(/* @vite-ignore */ name)) as JsdomModule;
  return new mod.JSDOM('<!doctype html><html><body></body></html>').window;
}
