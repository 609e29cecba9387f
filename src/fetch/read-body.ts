/**
 * Reads a response body, decompressing it ourselves (undici.request does not) and counting the
 * decompressed bytes as they stream, so a compression bomb is cut off after maxBytes with
 * memory bounded by the stream buffers, not by what the server claims or sends.
 */
import { Writable, type Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { FetchError } from './fetch-errors.js';

// Stacked codings are legal but real servers use one; each layer costs a zlib context.
const MAX_CODINGS = 2;

// Many servers cut gzip/deflate streams short; browsers render what arrived, and so do we.
const LENIENT = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };

export function tooLarge(maxBytes: number): FetchError {
  return new FetchError('too-large', `response larger than ${maxBytes} bytes`);
}

/**
 * Consumes or destroys the body whatever happens.
 * @throws FetchError too-large or undecodable (without a URL: the body's reader knows none);
 *   transport and abort errors are passed on as they are, for the caller to classify.
 */
export function readBody(body: Readable, contentEncoding: string | undefined, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  return collect(body, contentEncoding, maxBytes, signal, 'fail');
}

/**
 * The first maxBytes of the decoded body; the rest is never downloaded. For bodies where a
 * beginning is enough (robots.txt, the start of an error page).
 * @throws like readBody, except that a long body is not an error.
 */
export function readBodyPrefix(body: Readable, contentEncoding: string | undefined, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  return collect(body, contentEncoding, maxBytes, signal, 'truncate');
}

/** Stops the pipeline once a prefix is complete; never leaves collect(). */
class PrefixComplete extends Error {}

async function collect(
  body: Readable,
  contentEncoding: string | undefined,
  maxBytes: number,
  signal: AbortSignal,
  overflow: 'fail' | 'truncate',
): Promise<Buffer> {
  let decoders: Transform[];
  try {
    decoders = createDecoders(contentEncoding);
  } catch (error) {
    discardBody(body);
    throw error;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (size + chunk.length <= maxBytes) {
        size += chunk.length;
        chunks.push(chunk);
        return done();
      }
      if (overflow === 'fail') return done(tooLarge(maxBytes));
      chunks.push(chunk.subarray(0, maxBytes - size));
      size = maxBytes;
      done(new PrefixComplete());
    },
  });
  try {
    await pipeline([body, ...decoders, sink], { signal });
  } catch (error) {
    if (error instanceof PrefixComplete) return Buffer.concat(chunks, size);
    if (isZlibError(error)) throw new FetchError('undecodable', `invalid ${contentEncoding} body: ${error.message}`);
    throw error;
  }
  return Buffer.concat(chunks, size);
}

/**
 * Releases a body we will not read. Destroying costs the connection, but unlike draining it
 * cannot stall on a server that sends slowly; undici then reports an abort nobody needs to see.
 */
export function discardBody(body: Readable): void {
  body.on('error', () => undefined).destroy();
}

/** Decoders in the order to apply them: codings are listed in the order they were applied. */
function createDecoders(contentEncoding: string | undefined): Transform[] {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length > MAX_CODINGS) {
    throw new FetchError('undecodable', `too many content encodings: ${contentEncoding}`);
  }
  return codings.reverse().map((coding) => {
    switch (coding) {
      case 'gzip':
      case 'x-gzip':
        return zlib.createGunzip(LENIENT);
      case 'deflate':
        return zlib.createInflate(LENIENT);
      case 'br':
        return zlib.createBrotliDecompress();
      default:
        throw new FetchError('undecodable', `unsupported content encoding: ${coding}`);
    }
  });
}

function isZlibError(error: unknown): error is Error & { code: string } {
  // zlib reports Z_* codes, brotli ERR__* codes; socket errors (ECONNRESET...) have neither.
  if (!(error instanceof Error) || !('code' in error) || typeof error.code !== 'string') return false;
  return error.code.startsWith('Z_') || error.code.startsWith('ERR__');
}
