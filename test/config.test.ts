import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ConfigError, loadConfig } from '../src/config.js';
import { DEFAULT_PLANS } from '../src/auth/plans.js';
import { subjectAuthorities } from '../src/validate/subjects.js';

function jsonFile(contents: unknown): string {
  const file = path.join(os.tmpdir(), `sev-config-${randomUUID()}.json`);
  writeFileSync(file, typeof contents === 'string' ? contents : JSON.stringify(contents));
  return file;
}

type Env = Record<string, string | undefined>;

/** The ConfigError `loadConfig(env)` throws; fails the test when it throws nothing or something else. */
function configError(env: Env): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}, nothing was thrown`);
}

/** The message must name the variable as its subject, so an operator knows what to fix. */
function expectRejected(env: Env, variable: string): ConfigError {
  const error = configError(env);
  expect(error.name).to.equal('ConfigError');
  expect(error).to.be.instanceOf(Error);
  expect(error.message).to.match(new RegExp(`^Invalid configuration: ${variable}\\b`));
  return error;
}

describe('config', () => {
  describe('defaults', () => {
    it('uses documented defaults when the environment is empty', () => {
      const config = loadConfig({});
      expect(config.port).to.equal(8080);
      expect(config.databaseUrl).to.equal('mysql://root@127.0.0.1:3306/test');
      expect(config.redisUrl).to.equal('redis://127.0.0.1:6379');
      expect(config.maxBodyBytes).to.equal(10 * 1024 * 1024);
      expect(config.requireHttps).to.equal(false);
      expect(config.tls).to.equal(undefined);
      expect(config.trustedProxies).to.deep.equal([]);
      expect(config.fetch.allowedCidrs).to.deep.equal([]);
      expect(config.masterApiKey).to.equal(undefined);
      expect(config.logLevel).to.equal('info');
      expect(config.fetch.perHostConcurrency).to.equal(2);
      expect(config.fetch.respectRobots).to.equal(false);
      expect(config.tenantMetrics).to.equal('key');
      expect(config.poolThreadHeapMb).to.equal(1024);
      expect(config.html).to.deep.equal({ maxNodes: 250_000, maxDepth: 1000 });
      expect(config.pdf).to.deep.equal({ maxPages: 500, timeoutMs: 20_000 });
      expect(config.render).to.deep.equal({
        defaultMode: 'never', chromiumPath: '/usr/bin/chromium', contexts: 2, pageHeapMb: 512, browserMaxMb: 2048, blockedResources: ['image', 'font', 'media'],
      });
    });

    it('reads SEARCH_ANALYSIS_CACHE_MB, 32 MB by default, at least 1 MB and at most half a pool thread\'s heap', () => {
      expect(loadConfig({}).analysisCacheBytes).to.equal(32 * 2 ** 20);
      expect(loadConfig({ SEARCH_ANALYSIS_CACHE_MB: '8' }).analysisCacheBytes).to.equal(8 * 2 ** 20);
      expect(() => loadConfig({ SEARCH_ANALYSIS_CACHE_MB: '0' })).to.throw(/SEARCH_ANALYSIS_CACHE_MB/);
      expect(loadConfig({ POOL_THREAD_HEAP_MB: '64' }).analysisCacheBytes).to.equal(16 * 2 ** 20);
      expect(() => loadConfig({ POOL_THREAD_HEAP_MB: '64', SEARCH_ANALYSIS_CACHE_MB: '33' })).to.throw(/SEARCH_ANALYSIS_CACHE_MB/);
    });

    it('runs as many jobs per queue at once as it may have fetches in flight', () => {
      const config = loadConfig({});
      expect(config.workerConcurrency).to.equal(16);
      expect(config.workerConcurrency).to.equal(config.fetch.concurrency);
    });

    it('reads the rendering settings, RENDER_BLOCK_RESOURCES as a list or none', () => {
      const config = loadConfig({ RENDER_DEFAULT: 'auto', CHROMIUM_PATH: '/opt/chromium/chrome', RENDER_CONTEXTS: '4', RENDER_BLOCK_RESOURCES: ' Image, stylesheet ,image' });
      expect(config.render).to.deep.include({ defaultMode: 'auto', chromiumPath: '/opt/chromium/chrome', contexts: 4, blockedResources: ['image', 'stylesheet'] });
      expect(loadConfig({ RENDER_BLOCK_RESOURCES: 'none' }).render.blockedResources).to.deep.equal([]);
    });

    it('treats empty and blank values as unset', () => {
      const config = loadConfig({ PORT: '', DATABASE_URL: '   ', REQUIRE_HTTPS: '', MASTER_API_KEY: '' });
      expect(config.port).to.equal(8080);
      expect(config.databaseUrl).to.equal('mysql://root@127.0.0.1:3306/test');
      expect(config.requireHttps).to.equal(false);
      expect(config.masterApiKey).to.equal(undefined);
    });

    it('reads only the env object it is given, not process.env', () => {
      const saved = process.env.PORT;
      process.env.PORT = '1234';
      try {
        expect(loadConfig({}).port).to.equal(8080);
      } finally {
        if (saved === undefined) delete process.env.PORT;
        else process.env.PORT = saved;
      }
    });
  });

  describe('plans', () => {
    it('defaults to free, pro and enterprise, with the default account on the highest', () => {
      const config = loadConfig({});
      expect(config.plans.list.map((p) => p.name)).to.deep.equal(['free', 'pro', 'enterprise']);
      expect(config.defaultPlan).to.equal('enterprise');
      expect(config.plans.requiredFor('scoped_keys')?.name).to.equal('pro');
      expect(config.plans.requiredFor('service_accounts')?.name).to.equal('enterprise');
    });

    it('reads PLANS_FILE and lets DEFAULT_PLAN pick one of its plans', () => {
      const file = jsonFile([
        { name: 'team', rate_limit_per_minute: 100, monthly_limit: 5000, sandbox_monthly_limit: null, daily_limit_per_key: null, features: ['scoped_keys'] },
        { name: 'corp', rate_limit_per_minute: 900, monthly_limit: null, sandbox_monthly_limit: null, daily_limit_per_key: null, features: ['scoped_keys', 'service_accounts'] },
      ]);
      const config = loadConfig({ PLANS_FILE: file, DEFAULT_PLAN: 'team' });
      expect(config.defaultPlan).to.equal('team');
      expect(config.plans.get('corp').rate_limit_per_minute).to.equal(900);
      // An account whose plan disappeared from the file falls back to the lowest tier.
      expect(config.plans.get('enterprise').name).to.equal('team');
    });
  });

  describe('validation subjects', () => {
    it('lays VALIDATE_SUBJECTS_FILE over the built-in subjects', () => {
      expect(subjectAuthorities(loadConfig({}).validate.subjects, 'medicine')).to.deep.include({ domain: 'who.int', weight: 0.9 });
      const subjects = loadConfig({ VALIDATE_SUBJECTS_FILE: jsonFile({
        Energy: { domains: ['IEA.org', 'eia.gov.'], aliases: ['Power'], authority: 0.85 },
        medicine: { domains: ['nice.org.uk'] },
        law: { domains: [] },
      }) }).validate.subjects;
      expect(subjectAuthorities(subjects, 'power')).to.deep.equal([{ domain: 'iea.org', weight: 0.85 }, { domain: 'eia.gov', weight: 0.85 }]);
      // A subject of the file replaces the built-in one of that name, its aliases with it; none of its domains means none.
      expect(subjectAuthorities(subjects, 'Medicine')).to.deep.equal([{ domain: 'nice.org.uk', weight: 0.9 }]);
      expect(subjectAuthorities(subjects, 'health')).to.deep.equal([]);
      expect(subjectAuthorities(subjects, 'law')).to.deep.equal([]);
      expect(subjectAuthorities(subjects, 'physics')).to.deep.include({ domain: 'nasa.gov', weight: 0.9 });
    });
  });

  describe('immutability', () => {
    it('freezes the object and every nested object and list', () => {
      const config = loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8', TLS_CERT_FILE: '/c.pem', TLS_KEY_FILE: '/k.pem' });
      expect(Object.isFrozen(config)).to.equal(true);
      expect(Object.isFrozen(config.fetch)).to.equal(true);
      expect(Object.isFrozen(config.fetch.allowedCidrs)).to.equal(true);
      expect(Object.isFrozen(config.trustedProxies)).to.equal(true);
      expect(Object.isFrozen(config.tls)).to.equal(true);
    });

    it('rejects writes at any depth (ESM code is strict mode)', () => {
      const config = loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8' });
      expect(() => {
        (config as { port: number }).port = 1;
      }).to.throw(TypeError);
      expect(() => {
        (config.fetch as { maxRedirects: number }).maxRedirects = 99;
      }).to.throw(TypeError);
      expect(() => {
        (config.trustedProxies as string[]).push('0.0.0.0/0');
      }).to.throw(TypeError);
      expect(config.port).to.equal(8080);
      expect(config.fetch.maxRedirects).to.equal(5);
      expect(config.trustedProxies).to.deep.equal(['10.0.0.0/8']);
    });
  });

  describe('valid values', () => {
    it('parses comma-separated address and CIDR lists, trimming blanks', () => {
      const config = loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, ::1', FETCH_ALLOW_PRIVATE: ' 192.168.0.0/16 ,, fd00::/8 ' });
      expect(config.trustedProxies).to.deep.equal(['10.0.0.0/8', '::1']);
      expect(config.fetch.allowedCidrs).to.deep.equal(['192.168.0.0/16', 'fd00::/8']);
    });

    it('accepts the usual spellings of booleans, case-insensitively', () => {
      for (const yes of ['true', 'TRUE', '1', 'yes', 'on']) expect(loadConfig({ REQUIRE_HTTPS: yes }).requireHttps, yes).to.equal(true);
      for (const no of ['false', '0', 'no', 'Off']) expect(loadConfig({ REQUIRE_HTTPS: no }).requireHttps, no).to.equal(false);
    });

    it('accepts ports at both ends of the range and trims whitespace', () => {
      expect(loadConfig({ PORT: '0' }).port).to.equal(0);
      expect(loadConfig({ PORT: '65535' }).port).to.equal(65535);
      expect(loadConfig({ PORT: ' 3000 ' }).port).to.equal(3000);
    });

    it('reads the per-host fetch limit and the robots.txt switch', () => {
      const config = loadConfig({ FETCH_PER_HOST_CONCURRENCY: '5', FETCH_RESPECT_ROBOTS: 'true' });
      expect(config.fetch.perHostConcurrency).to.equal(5);
      expect(config.fetch.respectRobots).to.equal(true);
      expect(loadConfig({ FETCH_PER_HOST_CONCURRENCY: '1' }).fetch.perHostConcurrency).to.equal(1);
      expect(loadConfig({ FETCH_PER_HOST_CONCURRENCY: '100' }).fetch.perHostConcurrency).to.equal(100);
      expect(loadConfig({ FETCH_RESPECT_ROBOTS: 'off' }).fetch.respectRobots).to.equal(false);
    });

    it('leaves SearXNG and the summarizer off unless their URL is set, with breaker defaults', () => {
      const config = loadConfig({ SEARXNG_TIMEOUT_MS: '1500', LLM_MODEL: 'ignored' });
      expect(config.searxng).to.equal(undefined);
      expect(config.llm).to.equal(undefined);
      expect(config.upstreamBreaker).to.deep.equal({ failures: 5, windowMs: 60_000, cooldownMs: 30_000 });
    });

    it('reads the SearXNG instance, the chat-completions endpoint and the breaker settings', () => {
      const config = loadConfig({
        SEARXNG_URL: 'http://searxng:8080/',
        LLM_BASE_URL: 'https://llm.internal/v1',
        LLM_MODEL: 'qwen2.5-7b-instruct',
        LLM_API_KEY: 'sk-local',
        LLM_TIMEOUT_MS: '5000',
        LLM_MAX_TOKENS: '300',
        UPSTREAM_BREAKER_FAILURES: '3',
        UPSTREAM_BREAKER_WINDOW_MS: '10000',
        UPSTREAM_BREAKER_COOLDOWN_MS: '2000',
      });
      expect(config.searxng).to.deep.equal({ url: 'http://searxng:8080/', timeoutMs: 3000 });
      expect(config.llm).to.deep.equal({ baseUrl: 'https://llm.internal/v1', model: 'qwen2.5-7b-instruct', apiKey: 'sk-local', timeoutMs: 5000, maxTokens: 300 });
      expect(config.upstreamBreaker).to.deep.equal({ failures: 3, windowMs: 10_000, cooldownMs: 2000 });
      expect(Object.isFrozen(config.llm)).to.equal(true);
      expect(loadConfig({ LLM_BASE_URL: 'http://127.0.0.1:11434/v1', LLM_MODEL: 'm' }).llm).to.deep.include({ apiKey: undefined, timeoutMs: 8000, maxTokens: 512 });
    });

    it('reads the search settings and the domain-authority list, with documented defaults', () => {
      expect(loadConfig({}).search).to.deep.equal({ cacheTtlSeconds: 600, maxPerDomain: 3, deepPages: 5, deepPageTimeoutMs: 5000, authority: [] });
      const config = loadConfig({
        SEARCH_CACHE_TTL_S: '60', SEARCH_MAX_PER_DOMAIN: '0', SEARCH_DEEP_PAGES: '8', SEARCH_DEEP_PAGE_TIMEOUT_MS: '2000',
        SEARCH_AUTHORITY: ' NIH.gov=0.9, who.int.=1 ,example-blog.com=0.25,',
      });
      expect(config.search).to.deep.equal({
        cacheTtlSeconds: 60, maxPerDomain: 0, deepPages: 8, deepPageTimeoutMs: 2000,
        authority: [{ domain: 'nih.gov', weight: 0.9 }, { domain: 'who.int', weight: 1 }, { domain: 'example-blog.com', weight: 0.25 }],
      });
    });

    it('converts MAX_BODY_MB to bytes', () => {
      expect(loadConfig({ MAX_BODY_MB: '2' }).maxBodyBytes).to.equal(2 * 1024 * 1024);
    });

    it('accepts the alternative database and redis schemes', () => {
      const config = loadConfig({ DATABASE_URL: 'mariadb://u:p@db:3306/app', REDIS_URL: 'rediss://cache:6380' });
      expect(config.databaseUrl).to.equal('mariadb://u:p@db:3306/app');
      expect(config.redisUrl).to.equal('rediss://cache:6380');
    });

    it('enables TLS when both files are given', () => {
      expect(loadConfig({ TLS_CERT_FILE: '/etc/tls/cert.pem', TLS_KEY_FILE: '/etc/tls/key.pem' }).tls).to.deep.equal({
        certFile: '/etc/tls/cert.pem',
        keyFile: '/etc/tls/key.pem',
      });
    });

    it('accepts a master key of 24 characters and a known log level', () => {
      const key = 'k'.repeat(24);
      const config = loadConfig({ MASTER_API_KEY: key, LOG_LEVEL: 'debug' });
      expect(config.masterApiKey).to.equal(key);
      expect(config.logLevel).to.equal('debug');
    });
  });

  describe('invalid values throw a ConfigError naming the variable', () => {
    const cases: Array<[Env, string]> = [
      [{ PORT: 'abc' }, 'PORT'],
      [{ PORT: '8080.5' }, 'PORT'],
      [{ PORT: '70000' }, 'PORT'],
      [{ PORT: '-1' }, 'PORT'],
      [{ DATABASE_URL: 'postgres://x' }, 'DATABASE_URL'],
      [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
      [{ REDIS_URL: 'nonsense' }, 'REDIS_URL'],
      [{ REDIS_URL: 'http://cache:6379' }, 'REDIS_URL'],
      [{ REQUIRE_HTTPS: 'maybe' }, 'REQUIRE_HTTPS'],
      [{ TRUSTED_PROXIES: '10.0.0.0/33' }, 'TRUSTED_PROXIES'],
      [{ TRUSTED_PROXIES: '10.0.0.0/8, proxy.local' }, 'TRUSTED_PROXIES'],
      [{ FETCH_ALLOW_PRIVATE: 'not-an-ip' }, 'FETCH_ALLOW_PRIVATE'],
      [{ TLS_CERT_FILE: '/etc/tls/cert.pem' }, 'TLS_KEY_FILE'],
      [{ TLS_KEY_FILE: '/etc/tls/key.pem' }, 'TLS_CERT_FILE'],
      [{ MASTER_API_KEY: 'short-key' }, 'MASTER_API_KEY'],
      [{ MASTER_API_KEY: 'k'.repeat(23) }, 'MASTER_API_KEY'],
      [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
      [{ MAX_BODY_MB: '0' }, 'MAX_BODY_MB'],
      [{ DEFAULT_PLAN: 'platinum' }, 'DEFAULT_PLAN'],
      [{ UPGRADE_URL: 'ftp://plans.example' }, 'UPGRADE_URL'],
      [{ KEY_CACHE_TTL_S: '3601' }, 'KEY_CACHE_TTL_S'],
      [{ AUTH_FAILURES_PER_MINUTE: '0' }, 'AUTH_FAILURES_PER_MINUTE'],
      [{ PLANS_FILE: '/nonexistent/plans.json' }, 'PLANS_FILE'],
      [{ FETCH_PER_HOST_CONCURRENCY: '0' }, 'FETCH_PER_HOST_CONCURRENCY'],
      [{ FETCH_PER_HOST_CONCURRENCY: '101' }, 'FETCH_PER_HOST_CONCURRENCY'],
      [{ FETCH_PER_HOST_CONCURRENCY: 'two' }, 'FETCH_PER_HOST_CONCURRENCY'],
      [{ FETCH_RESPECT_ROBOTS: 'sometimes' }, 'FETCH_RESPECT_ROBOTS'],
      [{ RENDER_DEFAULT: 'sometimes' }, 'RENDER_DEFAULT'],
      [{ RENDER_CONTEXTS: '0' }, 'RENDER_CONTEXTS'],
      [{ RENDER_PAGE_HEAP_MB: '8' }, 'RENDER_PAGE_HEAP_MB'],
      [{ RENDER_BLOCK_RESOURCES: 'image,script' }, 'RENDER_BLOCK_RESOURCES'],
      [{ SEARCH_AUTHORITY: 'nih.gov' }, 'SEARCH_AUTHORITY'],
      [{ SEARCH_AUTHORITY: 'nih.gov=1.5' }, 'SEARCH_AUTHORITY'],
      [{ SEARCH_AUTHORITY: 'https://nih.gov=0.5' }, 'SEARCH_AUTHORITY'],
      [{ SEARCH_DEEP_PAGES: '0' }, 'SEARCH_DEEP_PAGES'],
      [{ SEARCH_MAX_PER_DOMAIN: '-1' }, 'SEARCH_MAX_PER_DOMAIN'],
      [{ SEARXNG_URL: 'searxng:8080' }, 'SEARXNG_URL'],
      [{ SEARXNG_URL: 'ftp://searxng' }, 'SEARXNG_URL'],
      [{ SEARXNG_TIMEOUT_MS: '50' }, 'SEARXNG_TIMEOUT_MS'],
      [{ LLM_BASE_URL: 'http://llm:8000/v1' }, 'LLM_MODEL'],
      [{ LLM_BASE_URL: 'llm.internal', LLM_MODEL: 'm' }, 'LLM_BASE_URL'],
      [{ LLM_TIMEOUT_MS: 'soon' }, 'LLM_TIMEOUT_MS'],
      [{ LLM_MAX_TOKENS: '0' }, 'LLM_MAX_TOKENS'],
      [{ UPSTREAM_BREAKER_FAILURES: '0' }, 'UPSTREAM_BREAKER_FAILURES'],
      [{ UPSTREAM_BREAKER_WINDOW_MS: '10' }, 'UPSTREAM_BREAKER_WINDOW_MS'],
      [{ UPSTREAM_BREAKER_COOLDOWN_MS: '1.5' }, 'UPSTREAM_BREAKER_COOLDOWN_MS'],
      [{ TENANT_METRICS: 'keys' }, 'TENANT_METRICS'],
      [{ POOL_THREAD_HEAP_MB: '16' }, 'POOL_THREAD_HEAP_MB'],
      [{ HTML_MAX_NODES: '999' }, 'HTML_MAX_NODES'],
      [{ HTML_MAX_DEPTH: 'deep' }, 'HTML_MAX_DEPTH'],
      [{ PDF_MAX_PAGES: '0' }, 'PDF_MAX_PAGES'],
      [{ PDF_TIMEOUT_MS: '50' }, 'PDF_TIMEOUT_MS'],
    ];
    for (const [env, variable] of cases) {
      it(`${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')} → ${variable}`, () => {
        expectRejected(env, variable);
      });
    }

    it('says what is wrong with a subjects file', () => {
      const rejected = (contents: unknown) => expectRejected({ VALIDATE_SUBJECTS_FILE: jsonFile(contents) }, 'VALIDATE_SUBJECTS_FILE').message;
      expect(expectRejected({ VALIDATE_SUBJECTS_FILE: '/nonexistent/subjects.json' }, 'VALIDATE_SUBJECTS_FILE').message).to.include('cannot be read');
      expect(rejected('{')).to.include('not valid JSON');
      expect(rejected([])).to.include('JSON object');
      expect(rejected({ energy: ['iea.org'] })).to.include('"energy" must be an object');
      expect(rejected({ energy: { domains: 'iea.org' } })).to.include('domains must be an array of strings');
      expect(rejected({ energy: { domains: ['https://iea.org/'] } })).to.include('is not a domain');
      expect(rejected({ energy: { domains: ['iea.org'], authority: 2 } })).to.include('authority must be a number from 0 to 1');
    });

    it('says what is wrong with a plans file', () => {
      const plan = { ...DEFAULT_PLANS[0] };
      expect(expectRejected({ PLANS_FILE: jsonFile('[{') }, 'PLANS_FILE').message).to.include('not valid JSON');
      expect(expectRejected({ PLANS_FILE: jsonFile([]) }, 'PLANS_FILE').message).to.include('non-empty');
      expect(expectRejected({ PLANS_FILE: jsonFile([plan, plan]) }, 'PLANS_FILE').message).to.include('used twice');
      expect(expectRejected({ PLANS_FILE: jsonFile([{ ...plan, monthly_limit: 0 }]) }, 'PLANS_FILE').message).to.include('monthly_limit');
      expect(expectRejected({ PLANS_FILE: jsonFile([{ ...plan, features: ['sso'] }]) }, 'PLANS_FILE').message).to.include('features');
      expect(expectRejected({ PLANS_FILE: jsonFile([{ ...plan, quota: 1 }]) }, 'PLANS_FILE').message).to.include('quota');
      const { daily_limit_per_key: _omitted, ...incomplete } = plan;
      expect(expectRejected({ PLANS_FILE: jsonFile([incomplete]) }, 'PLANS_FILE').message).to.include('daily_limit_per_key');
    });

    it('quotes the offending value so the operator can see it', () => {
      expect(configError({ PORT: 'abc' }).message).to.include('"abc"');
      expect(configError({ LOG_LEVEL: 'loud' }).message).to.include('"loud"');
      expect(configError({ TRUSTED_PROXIES: '10.0.0.0/8, 10.0.0.0/33' }).message).to.include('"10.0.0.0/33"');
    });

    it('does not echo a too-short master key (a secret) into the message', () => {
      expect(configError({ MASTER_API_KEY: 'hunter2-secret' }).message).not.to.include('hunter2-secret');
    });
  });
});
