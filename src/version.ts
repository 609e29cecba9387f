import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './paths.js';

/** The service version as the health endpoint reports it: v<major>.<minor>.<patch> from package.json. */
export const VERSION = `v${(JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version}`;
