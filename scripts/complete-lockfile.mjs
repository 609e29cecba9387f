// The npm registry reachable from this project's build machines lacks the darwin/win32/linux-arm
// builds of msgpackr-extract (BullMQ's optional native msgpack accelerator), so `npm install`
// cannot record them and `npm ci` then refuses the lock file as out of sync. This adds the
// missing optional entries (platform-restricted, so no Linux x64 install ever fetches them).
// Run after regenerating package-lock.json: node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const owner = lock.packages['node_modules/msgpackr-extract'];
const platforms = { 'darwin-arm64': ['darwin', 'arm64'], 'darwin-x64': ['darwin', 'x64'], 'linux-arm': ['linux', 'arm'], 'win32-x64': ['win32', 'x64'] };
let added = 0;
for (const [suffix, [os, cpu]] of Object.entries(platforms)) {
  const key = `node_modules/@msgpackr-extract/msgpackr-extract-${suffix}`;
  if (lock.packages[key] || !owner) continue;
  lock.packages[key] = { version: owner.version, cpu: [cpu], license: 'MIT', optional: true, os: [os] };
  added++;
}
const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
lock.packages = sorted;
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} optional lock entries`);
