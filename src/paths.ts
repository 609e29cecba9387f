import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The repository root, found from this module's place in the build output (dist/src/paths.js). */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const SCHEMAS_DIR = path.join(PROJECT_ROOT, 'schemas');

/** The console's bundle, built by `npm run build` (scripts/build-console.ts) and served under /console. */
export const CONSOLE_DIR = path.join(PROJECT_ROOT, 'dist', 'console');
