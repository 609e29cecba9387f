/**
 * Which way imports may run. `npm test` checks these rules (`npm run lint:deps`) before mocha;
 * a wrong arrow fails the build with the rule's name and the comment below it. The layers, top
 * to bottom (docs/architecture.md):
 *
 *   entry points   src/main.ts, src/lifecycle.ts, src/service.ts (the one wiring place), workers/, src/cli/
 *   edges          src/http (Koa), src/jobs (BullMQ processors)
 *   features       alerts, auth, cache, compat, crawl, extract, index, monitor, notify, page, render, search, sso, summarize, teams, usage, validate: services and repositories
 *   domain         html, text, ranking, stance, summary, pdf: pure code, no I/O, no threads
 *   infrastructure storage, fetch, queue, redis, metrics, log, net, schema, errors; and src/pool, which
 *                  runs domain code in threads and knows its tasks by type only
 *
 * Apart from the layers: console/src, the browser console (Preact), bundled by scripts/build-console.ts
 * into dist/console and served as files. It and the server never import each other.
 */
const DOMAIN = '^src/(html|text|ranking|stance|summary|pdf)/';
const FEATURES = '^src/(alerts|auth|cache|compat|crawl|extract|index|monitor|notify|page|render|search|sso|summarize|teams|usage|validate)/';
const INFRASTRUCTURE = '^src/(storage|fetch|queue|redis|metrics|log|net|schema|errors)/';
const IO_PACKAGES = 'node_modules/(kysely|mysql2|ioredis|bullmq|undici|piscina|koa|@koa|playwright-core)/';
const ENTRY_POINTS = '^src/(main|lifecycle|service)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle means two modules are one concept, or a shared piece has no home of its own: give it one.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-not-to-workers',
      severity: 'error',
      comment: 'workers/ holds entry points (the worker process, the pool threads) that import src/; src/ never imports them.',
      from: { path: '^src/' },
      to: { path: '^workers/' },
    },
    {
      name: 'only-wiring-to-edges',
      severity: 'error',
      comment: 'src/http and src/jobs are the outermost layer: only the wiring (src/service.ts) and they themselves import them. Shared pieces (errors, schema validation, IP ranges) live below.',
      from: { path: '^src/', pathNot: [ENTRY_POINTS, '^src/http/'] },
      to: { path: '^src/http/' },
    },
    {
      name: 'only-wiring-to-jobs',
      severity: 'error',
      comment: 'Queue processors (src/jobs) are started by the wiring (src/service.ts) only.',
      from: { path: '^src/', pathNot: [ENTRY_POINTS, '^src/jobs/'] },
      to: { path: '^src/jobs/' },
    },
    {
      name: 'nothing-to-entry-points',
      severity: 'error',
      comment: 'Entry points and the command line are the top: nothing in src/ imports them.',
      from: { path: '^src/', pathNot: [ENTRY_POINTS, '^src/cli/'] },
      to: { path: [ENTRY_POINTS, '^src/cli/'] },
    },
    {
      name: 'features-not-to-edges',
      severity: 'error',
      comment: 'Services and repositories know nothing of HTTP, BullMQ processors or the command line.',
      from: { path: FEATURES },
      to: { path: '^src/(http|jobs|cli)/' },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'Domain code (html, text, ranking, stance, summary, pdf) is plain computation on values: no features, no storage, network, queue or threads. It runs in the pool as well as anywhere else.',
      from: { path: DOMAIN },
      to: { path: [FEATURES, '^src/(http|jobs|cli|storage|fetch|queue|redis|pool|metrics|log)/', IO_PACKAGES] },
    },
    {
      name: 'infrastructure-below-features',
      severity: 'error',
      comment: 'Storage, fetch, queue, Redis, the pool, metrics, logging, schema validation and errors serve the layers above; they do not reach up into features, domain or edges.',
      from: { path: INFRASTRUCTURE },
      to: { path: [FEATURES, DOMAIN, '^src/(http|jobs|cli)/'] },
    },
    {
      name: 'fetch-has-own-errors',
      severity: 'error',
      comment: 'The fetcher reports what went wrong as FetchError (a kind and a reason, src/fetch/fetch-errors.ts); what a client is told is decided by the features that read pages for one (src/page/fetch-failure.ts, the one mapping). Its users that answer no client (robots.txt, sitemaps, upstream JSON) get the kind, not an API code.',
      from: { path: '^src/fetch/' },
      to: { path: '^src/errors/' },
    },
    {
      name: 'pool-knows-tasks-by-type',
      severity: 'error',
      comment: 'src/pool names the tasks it runs by their types (import type): the code runs in the pool threads (workers/pool/tasks.ts), never loaded by the thread that asks.',
      from: { path: '^src/pool/' },
      to: { path: [FEATURES, DOMAIN, '^src/(http|jobs|cli)/'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'pool-tasks-are-pure',
      severity: 'error',
      comment: 'Piscina tasks run in threads with no connections: nothing they load may reach MySQL, Redis, the queue or the network.',
      from: { path: '^workers/pool/' },
      to: { path: ['^src/(storage|fetch|queue|redis|http|jobs)/', IO_PACKAGES], reachable: true },
    },
    {
      name: 'client-is-standalone',
      severity: 'error',
      comment: 'clients/typescript is a package of its own, published apart from the service: it imports nothing of the repository but its own files (its types come from the OpenAPI document).',
      from: { path: '^clients/' },
      to: { path: '^(src|workers|test|bench|scripts)/' },
    },
    {
      name: 'client-for-callers-only',
      severity: 'error',
      comment: 'The typed client is for code that calls the API as a client does: the command line and the MCP server. The service itself calls its services, not its own HTTP API.',
      from: { path: '^src/', pathNot: ['^src/cli/', '^src/mcp/'] },
      to: { path: '^clients/' },
    },
    {
      name: 'console-is-front-end',
      severity: 'error',
      comment: 'console/src runs in the browser and talks to the service over its HTTP API only (console/src/api.ts): it never imports server, worker, test, script or client code.',
      from: { path: '^console/' },
      to: { path: '^(src|workers|test|bench|scripts|clients)/' },
    },
    {
      name: 'console-bundles-preact-only',
      severity: 'error',
      comment: 'Everything the console imports is bundled and served by the service: Preact and its own files, no Node built-in (it would not run in a browser) and no other package unless chosen on purpose (docs/console.md: the bundle size is reported).',
      from: { path: '^console/' },
      to: { pathNot: ['^console/', 'node_modules/preact/'] },
    },
    {
      name: 'server-not-to-console',
      severity: 'error',
      comment: 'The service serves the console as built files (dist/console, src/http/console-assets.ts); no server, worker, test or benchmark code imports its sources.',
      from: { path: '^(src|workers|test|bench|scripts|clients)/' },
      to: { path: '^console/' },
    },
    {
      name: 'migrations-are-frozen',
      severity: 'error',
      comment: 'A migration describes the schema at the time it was written; importing live code would change an old migration silently when that code changes. Copy what it needs into it.',
      from: { path: '^src/storage/migrations/' },
      to: { path: '^src/', pathNot: '^src/storage/migrations/' },
    },
    {
      name: 'sql-in-repositories',
      severity: 'error',
      comment: 'Only repositories (*.repository.ts), storage, migrations and the index (whose repositories share a transaction type) speak SQL through Kysely.',
      from: { path: '^src/', pathNot: ['\\.repository\\.ts$', '^src/storage/', '^src/index/'] },
      to: { path: 'node_modules/kysely/', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
