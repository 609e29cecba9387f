/**
 * Builds the console (console/src, Preact) into dist/console: one JavaScript and one CSS file,
 * minified, named by their content's hash (served with a year-long cache), and index.html
 * pointing at them. Nothing is loaded from another host: the Content-Security-Policy the service
 * sends with the console allows only its own origin. Prints the bundle's size, raw and gzipped.
 *
 *   node dist/scripts/build-console.js        (the last step of npm run build)
 */
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { PROJECT_ROOT } from '../src/paths.js';

const source = path.join(PROJECT_ROOT, 'console', 'src');
const out = path.join(PROJECT_ROOT, 'dist', 'console');
const assets = path.join(out, 'assets');
// Bundles of an earlier build would linger under names nothing points to: start empty.
rmSync(out, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });

const result = await build({
  entryPoints: [path.join(source, 'main.tsx')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  entryNames: 'console-[hash]',
  outdir: assets,
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const files = Object.keys(result.metafile.outputs).map((file) => path.resolve(PROJECT_ROOT, file));
const script = files.find((file) => file.endsWith('.js'));
const style = files.find((file) => file.endsWith('.css'));
if (!script || !style) throw new Error(`the console build made ${files.join(', ')}; expected one .js and one .css`);

const tags = [
  `<link rel="stylesheet" href="/console/assets/${path.basename(style)}">`,
  `<script type="module" src="/console/assets/${path.basename(script)}"></script>`,
].join('\n');
const html = readFileSync(path.join(source, 'index.html'), 'utf8').replace('<!-- assets -->', tags);
writeFileSync(path.join(out, 'index.html'), html);

let raw = 0;
let gzipped = 0;
for (const file of [script, style, path.join(out, 'index.html')]) {
  const bytes = readFileSync(file);
  raw += bytes.length;
  gzipped += gzipSync(bytes, { level: 9 }).length;
}
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
process.stdout.write(`console: dist/console (${path.basename(script)}, ${path.basename(style)}, index.html): ${kb(raw)}, ${kb(gzipped)} gzipped\n`);
