/**
 * The boot guard's script: vite.config.ts bundles this file, with what it imports, into one classic
 * script without imports (assets/boot-guard-<hash>.js), first in index.html's head (boot-guard.ts).
 */
import { installBootGuard } from './boot-guard';

installBootGuard(window);
