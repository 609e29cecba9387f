/**
 * A reason the service cannot start that the operator can fix (a database it may not create, a
 * server setting it cannot work with). Its message says what to do; the process entry prints it
 * as one plain line and exits 1, without a stack trace.
 */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}
