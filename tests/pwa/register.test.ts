import { describe, expect, it, vi } from 'vitest';
import { registerServiceWorker, watchInstallFailures, OfflineCopyError, type WorkboxLike } from '../../src/pwa/register.js';

type Listener = (event: { isUpdate?: boolean; wasWaitingBeforeRegister?: boolean }) => void;

/** A stand-in for workbox-window's Workbox: events are fired by the test. */
class FakeWorkbox implements WorkboxLike {
  listeners = new Map<string, Listener[]>();
  registered = false;
  skipWaitingMessages = 0;
  updates = 0;
  constructor(
    readonly url: string,
    readonly options: { scope?: string },
  ) {}
  addEventListener(type: string, listener: Listener): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  fire(type: string, event: { isUpdate?: boolean; wasWaitingBeforeRegister?: boolean } = {}): void {
    for (const l of this.listeners.get(type) ?? []) l(event);
  }
  async register() {
    this.registered = true;
    return { scope: 'https://skycite.example/' } as ServiceWorkerRegistration;
  }
  async update() {
    this.updates++;
  }
  messageSkipWaiting() {
    this.skipWaitingMessages++;
  }
}

function setup(extra: { url?: string; scope?: string; whenActive?: () => Promise<unknown> } = {}) {
  let wb: FakeWorkbox | undefined;
  const reload = vi.fn();
  const notice = vi.fn();
  const promise = registerServiceWorker({
    enabled: true,
    supported: true,
    reload,
    notice,
    hasController: () => true,
    channel: null,
    whenActive: () => new Promise(() => undefined),
    createWorkbox: (url, options) => (wb = new FakeWorkbox(url, options)),
    ...extra,
  });
  return { promise, reload, notice, wb: () => wb! };
}

describe('registerServiceWorker', () => {
  it('is a no-op when disabled (dev server) or unsupported', async () => {
    const createWorkbox = vi.fn();
    expect(await registerServiceWorker({ enabled: false, supported: true, createWorkbox })).toBeNull();
    expect(await registerServiceWorker({ enabled: true, supported: false, createWorkbox })).toBeNull();
    // In Node there is no navigator.serviceWorker.
    expect(await registerServiceWorker({ enabled: true, createWorkbox })).toBeNull();
    expect(createWorkbox).not.toHaveBeenCalled();
  });

  it('registers <base>sw.js by default, or the given URL and scope', async () => {
    const a = setup();
    const updater = await a.promise;
    expect(a.wb().url).toBe('/sw.js');
    expect(a.wb().registered).toBe(true);
    expect(updater?.registration?.scope).toBe('https://skycite.example/');
    const b = setup({ url: '/app/sw.js', scope: '/app/' });
    await b.promise;
    expect(b.wb().url).toBe('/app/sw.js');
    expect(b.wb().options).toEqual({ scope: '/app/' });
  });

  it('reports the offline copy stored only once a service worker is active (its precache installed)', async () => {
    let activate!: () => void;
    const active = new Promise<void>((r) => (activate = r));
    const updater = (await setup({ whenActive: () => active }).promise)!;
    let ready = false;
    void updater.offlineReady.then(() => (ready = true));
    await Promise.resolve();
    expect(ready).toBe(false);
    activate();
    await updater.offlineReady;
    expect(ready).toBe(true);
  });

  it('signals a waiting new version, then applies it: skip waiting, reload on control', async () => {
    const { promise, reload, wb } = setup();
    const updater = (await promise)!;
    const seen = vi.fn();
    const unsubscribe = updater.onUpdateAvailable(seen);
    expect(updater.updateAvailable).toBe(false);
    // applyUpdate does nothing while nothing waits.
    await updater.applyUpdate();
    expect(wb().skipWaitingMessages).toBe(0);

    wb().fire('waiting', { isUpdate: true });
    expect(seen).toHaveBeenCalledTimes(1);
    expect(updater.updateAvailable).toBe(true);

    // A late subscriber hears about it at once.
    const late = vi.fn();
    updater.onUpdateAvailable(late);
    expect(late).toHaveBeenCalledTimes(1);

    await updater.applyUpdate();
    await updater.applyUpdate(); // idempotent
    expect(wb().skipWaitingMessages).toBe(1);
    expect(reload).not.toHaveBeenCalled();
    wb().fire('controlling', { isUpdate: true });
    expect(reload).toHaveBeenCalledTimes(1);

    unsubscribe();
    wb().fire('waiting', { isUpdate: true });
    expect(seen).toHaveBeenCalledTimes(1);
  });

  it('does not reload when the first install takes control', async () => {
    const { promise, reload, wb } = setup();
    await promise;
    wb().fire('controlling', { isUpdate: false });
    wb().fire('controlling', {});
    expect(reload).not.toHaveBeenCalled();
  });

  it('follows an update accepted in another tab: reloads once, with the notice saying so', async () => {
    const { promise, reload, notice, wb } = setup();
    const updater = (await promise)!;
    wb().fire('waiting', { isUpdate: true });
    // this tab's user did nothing; another tab's "Update available — reload" activated the new version
    wb().fire('controlling', { isUpdate: true });
    expect(reload).toHaveBeenCalledTimes(1);
    expect(notice).toHaveBeenCalledWith('updated-elsewhere');
    // a click on this tab's (now stale) button does not send a second skip-waiting or reload
    await updater.applyUpdate();
    wb().fire('controlling', { isUpdate: true });
    expect(wb().skipWaitingMessages).toBe(0);
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('a controller lost (site data cleared) is not an update: no reload', async () => {
    const reload = vi.fn();
    let controlled = true;
    const wb = new FakeWorkbox('/sw.js', {});
    await registerServiceWorker({
      enabled: true,
      supported: true,
      reload,
      notice: () => undefined,
      hasController: () => controlled,
      channel: null,
      whenActive: () => new Promise(() => undefined),
      createWorkbox: () => wb,
    });
    controlled = false;
    wb.fire('controlling', { isUpdate: true });
    expect(reload).not.toHaveBeenCalled();
  });

  it('tells the other tabs over a channel, and follows a tab that did (tabs no service worker controls included)', async () => {
    const bus = new EventTarget();
    const sent: unknown[] = [];
    const channel = () => ({
      postMessage: (data: unknown) => {
        sent.push(data);
        bus.dispatchEvent(new MessageEvent('message', { data }));
      },
      addEventListener: (t: string, l: (e: Event) => void) => bus.addEventListener(t, l),
    });
    const mk = async (controlled: boolean) => {
      const reload = vi.fn();
      const notice = vi.fn();
      const wb = new FakeWorkbox('/sw.js', {});
      const updater = (await registerServiceWorker({
        enabled: true,
        supported: true,
        reload,
        notice,
        hasController: () => controlled,
        channel: channel() as unknown as BroadcastChannel,
        whenActive: () => new Promise(() => undefined),
        createWorkbox: () => wb,
      }))!;
      return { reload, notice, wb, updater };
    };
    const b = await mk(true);
    const a = await mk(false); // opened before the first install: no controller, no controllerchange
    b.wb.fire('waiting', { isUpdate: true });
    await b.updater.applyUpdate();
    b.wb.fire('controlling', { isUpdate: true });
    expect(sent).toEqual([{ type: 'skycite-updated' }]);
    expect(b.reload).toHaveBeenCalledTimes(1);
    expect(a.reload).toHaveBeenCalledTimes(1);
    expect(a.notice).toHaveBeenCalledWith('updated-elsewhere');
  });

  it('a stale button whose version already took over reloads instead of doing nothing', async () => {
    const reload = vi.fn();
    const wb = new FakeWorkbox('/sw.js', {});
    wb.register = async () => ({ scope: '/', waiting: null, active: {} }) as unknown as ServiceWorkerRegistration;
    const updater = (await registerServiceWorker({
      enabled: true,
      supported: true,
      reload,
      notice: () => undefined,
      whenActive: () => new Promise(() => undefined),
      createWorkbox: () => wb,
      channel: null,
    }))!;
    wb.fire('waiting', { isUpdate: true });
    await updater.applyUpdate();
    expect(reload).toHaveBeenCalledTimes(1);
    expect(wb.skipWaitingMessages).toBe(0);
  });

  it('rejects offlineReady when the installing worker becomes redundant (the precache failed, e.g. the quota)', async () => {
    const workers: FakeSW[] = [];
    const reg = new FakeRegistration();
    reg.installing = new FakeSW('installing');
    workers.push(reg.installing);
    const wb = new FakeWorkbox('/sw.js', {});
    wb.register = async () => reg as unknown as ServiceWorkerRegistration;
    const updater = (await registerServiceWorker({
      enabled: true,
      supported: true,
      reload: () => undefined,
      whenActive: () => new Promise(() => undefined),
      createWorkbox: () => wb,
      channel: null,
    }))!;
    const outcome = updater.offlineReady.then(
      () => 'ready',
      (e: unknown) => (e instanceof OfflineCopyError ? 'failed' : 'other'),
    );
    workers[0]!.set('redundant');
    expect(await outcome).toBe('failed');
  });
});

class FakeSW {
  private listeners: (() => void)[] = [];
  constructor(public state: string) {}
  addEventListener(_t: 'statechange', l: () => void) {
    this.listeners.push(l);
  }
  set(state: string) {
    this.state = state;
    for (const l of this.listeners) l();
  }
}
class FakeRegistration {
  installing: FakeSW | null = null;
  waiting: FakeSW | null = null;
  active: FakeSW | null = null;
  private listeners: (() => void)[] = [];
  addEventListener(_t: 'updatefound', l: () => void) {
    this.listeners.push(l);
  }
  found(sw: FakeSW) {
    this.installing = sw;
    for (const l of this.listeners) l();
  }
}

describe('retryInstall', () => {
  it('registers again and settles with the new install: stored, or failed again', async () => {
    const wb = new FakeWorkbox('/sw.js', {});
    let activate!: () => void;
    const regs: FakeRegistration[] = [];
    const updater = (await registerServiceWorker({
      enabled: true,
      supported: true,
      channel: null,
      whenActive: () => new Promise<void>((r) => (activate = r)),
      createWorkbox: () => wb,
      reRegister: async () => {
        const reg = new FakeRegistration();
        reg.installing = new FakeSW('installing');
        regs.push(reg);
        return reg;
      },
    }))!;
    const failed = updater.retryInstall().then(
      () => 'stored',
      (e: unknown) => (e instanceof OfflineCopyError ? 'failed' : 'other'),
    );
    await Promise.resolve();
    await Promise.resolve();
    regs[0]!.installing!.set('redundant');
    expect(await failed).toBe('failed');
    const stored = updater.retryInstall().then(() => 'stored');
    await Promise.resolve();
    await Promise.resolve();
    activate();
    expect(await stored).toBe('stored');
  });
});

describe('watchInstallFailures', () => {
  it('reports an install that failed, not a worker replaced after it installed', () => {
    const reg = new FakeRegistration();
    const onFail = vi.fn();
    watchInstallFailures(reg, onFail);
    const ok = new FakeSW('installing');
    reg.found(ok);
    ok.set('installed');
    ok.set('activating');
    ok.set('activated');
    ok.set('redundant'); // replaced by a later version: not a failure
    expect(onFail).not.toHaveBeenCalled();
    const bad = new FakeSW('installing');
    reg.found(bad);
    bad.set('redundant');
    expect(onFail).toHaveBeenCalledTimes(1);
  });
});

describe('registerServiceWorker, a version waiting before registration', () => {
  it('treats a version already waiting before registration as an update', async () => {
    const { promise, wb } = setup();
    const updater = (await promise)!;
    wb().fire('waiting', { wasWaitingBeforeRegister: true });
    expect(updater.updateAvailable).toBe(true);
    await updater.checkForUpdate();
    expect(wb().updates).toBe(1);
  });
});
