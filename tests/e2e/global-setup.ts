/**
 * Before the browser tests: make sure the static index is current (build it when
 * missing or stale) and build the production app into dist/.
 */
import { spawnSync } from 'node:child_process';
import { staleReason, DEFAULT_INDEX_DIR } from '../../corpus-build/node/index-fs.js';
import { modelFile } from '../../corpus-build/node/model.js';

export default function setup(): void {
  const reason = staleReason(DEFAULT_INDEX_DIR, modelFile());
  const run = (cmd: string, args: string[]) => {
    // vitest sets NODE_ENV=test; a production build needs NODE_ENV=production (import.meta.env.PROD)
    const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status})`);
  };
  if (reason) {
    console.log(`[e2e] static index: ${reason} — building it`);
    run('npx', ['tsx', 'corpus-build/cli/index.ts']);
  }
  console.log('[e2e] building the app (vite build)');
  run('npx', ['vite', 'build', '--logLevel', 'warn']);
}
