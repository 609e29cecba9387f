import { fetchPage as fetchPageTyped, type FetchedPage, type FetchOptions } from '../../src/fetch/fetch-page.js';
import { clientError } from '../../src/page/fetch-failure.js';

/**
 * fetchPage with its failures as clients receive them: each FetchError mapped to the error
 * catalogue as every endpoint maps it (clientError). Tests of the fetcher's behaviour assert on
 * what the client is told; test/fetch-errors.test.ts checks the kinds themselves.
 */
export async function fetchPage(url: string, options: FetchOptions): Promise<FetchedPage> {
  try {
    return await fetchPageTyped(url, options);
  } catch (error) {
    throw clientError(error);
  }
}
