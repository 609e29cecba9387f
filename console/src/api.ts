/**
 * The console's one way to the API: same origin, the session cookie sent by the browser (never a
 * key kept in script), and the session's CSRF token on every change (docs/teams-and-sso.md).
 */

/** An error envelope of the API (section 7.1), or a network failure (status 0). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;
let onSignedOut: () => void = () => {};

export function useCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when the API says the session is gone (401 INVALID_SESSION or MISSING_API_KEY): sign in again. */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

export interface CallOptions {
  body?: unknown;
  /** Sign-in only: the key goes in Authorization once, to start the session. */
  key?: string;
}

export async function api<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  else if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    });
  } catch (error) {
    throw new ApiFailure(0, 'NETWORK_ERROR', `The service did not answer: ${(error as Error).message}`);
  }
  const text = await response.text();
  let json: { data?: T; error?: { code?: string; message?: string; details?: Record<string, unknown> } } | null = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok) {
    const error = json?.error;
    const failure = new ApiFailure(response.status, error?.code ?? `HTTP_${response.status}`, error?.message ?? (text || response.statusText), error?.details ?? {});
    if (options.key === undefined && response.status === 401 && (failure.code === 'INVALID_SESSION' || failure.code === 'MISSING_API_KEY')) onSignedOut();
    throw failure;
  }
  return json?.data as T;
}

/** A query string of the defined, non-empty values. */
export function query(values: Record<string, string | number | boolean | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
