/** Polls `read` until it yields a value (anything but undefined), or fails after `timeoutMs`. */
export async function eventually<T>(read: () => Promise<T | undefined>, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Polls `check` until it is true, or fails after `timeoutMs`. */
export async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  await eventually(async () => ((await check()) ? true : undefined), timeoutMs);
}
