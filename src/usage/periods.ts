/** Usage periods are calendar months and days in UTC, whatever the server's time zone. */
export function monthOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

export function startOfNextMonth(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

export function startOfNextDay(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}
