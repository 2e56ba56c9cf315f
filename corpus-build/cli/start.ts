/**
 * `npm start`: build the static index if it is missing or stale, build the app,
 * and serve it locally (vite preview).
 */
import { spawnSync } from 'node:child_process';
import { DEFAULT_INDEX_DIR, staleReason } from '../node/index-fs.js';
import { modelFile } from '../node/model.js';

const run = (cmd: string, args: string[]): void => {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

const reason = staleReason(DEFAULT_INDEX_DIR, modelFile());
if (reason) {
  console.log(`Static index: ${reason} — building it (npm run index)…`);
  run('npx', ['tsx', 'corpus-build/cli/index.ts']);
} else {
  console.log('Static index is current.');
}
run('npx', ['vite', 'build']);
run('npx', ['vite', 'preview', ...process.argv.slice(2)]);
