/**
 * What the cached-search benchmarks index and ask (cache-throughput.ts, cached-external.ts): ten
 * short documents that answer one question, so that the first search stores an answer of about
 * 5 KB and every later one is a cache hit.
 */
export const CACHED_QUERY = 'What is the speed of light?';

export const CACHED_DOCUMENTS = Array.from({ length: 10 }, (_, i) => ({
  url: `https://physics.example.org/light/${i}`,
  title: `The speed of light, part ${i}`,
  content: `${'The speed of light in vacuum is exactly 299,792,458 metres per second, a defined constant since 1983. '.repeat(4)}`
    + `Part ${i} explains how it was measured, from Rømer's eclipses of Io to Fizeau's toothed wheel and modern lasers.`,
}));
