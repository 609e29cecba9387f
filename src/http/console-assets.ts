import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Middleware } from 'koa';
import { ApiError } from '../errors/catalogue.js';
import type { AppState } from './context.js';

/**
 * The console (docs/console.md): the files `npm run build` puts in dist/console, served by the
 * API process under /console. Every page path (/console/keys, /console/audit, …) answers the
 * same index.html and the script routes; /console/assets/<file> are the hashed bundles.
 *
 * Every answer carries a Content-Security-Policy that allows this origin only: no inline script
 * or style, no asset or connection to another host, no framing. The bundle is read once, on the
 * first request, and kept in memory (a few tens of kB).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

interface Bundle {
  index: Buffer;
  assets: Map<string, { body: Buffer; type: string }>;
}

function loadBundle(dir: string): Bundle | null {
  const indexFile = path.join(dir, 'index.html');
  if (!existsSync(indexFile)) return null;
  const assets = new Map<string, { body: Buffer; type: string }>();
  const assetDir = path.join(dir, 'assets');
  for (const name of existsSync(assetDir) ? readdirSync(assetDir) : []) {
    const type = TYPES[path.extname(name)];
    if (type) assets.set(name, { body: readFileSync(path.join(assetDir, name)), type });
  }
  return { index: readFileSync(indexFile), assets };
}

function isConsolePath(pathname: string): boolean {
  return pathname === '/console' || pathname.startsWith('/console/');
}

export function consoleAssets(dir: string): Middleware<AppState> {
  let bundle: Bundle | null | undefined;
  return async (ctx, next) => {
    if (!isConsolePath(ctx.path)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new ApiError('METHOD_NOT_ALLOWED', { method: ctx.method, allowed: ['GET', 'HEAD'] });
    }
    bundle ??= loadBundle(dir);
    if (!bundle) {
      bundle = undefined; // built later (npm run build while running): look again next time
      throw new ApiError('NOT_FOUND', { path: ctx.path, resource: 'console', id: null }, 'The console is not built: run npm run build.');
    }
    ctx.set(SECURITY_HEADERS);
    if (ctx.path.startsWith('/console/assets/')) {
      const asset = bundle.assets.get(ctx.path.slice('/console/assets/'.length));
      if (!asset) throw new ApiError('NOT_FOUND', { path: ctx.path, resource: 'console asset', id: null });
      // Named by their content's hash: a new build has new names, so they never go stale.
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.type = asset.type;
      ctx.body = asset.body;
      return;
    }
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = bundle.index;
  };
}
