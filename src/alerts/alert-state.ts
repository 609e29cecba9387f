/**
 * The life of an alert, one evaluation at a time:
 *
 *   inactive ──condition true──▶ pending ──true for `duration`──▶ firing ──condition false──▶ resolved
 *      ▲                           │                                                            │
 *      └──────condition false──────┘                  resolved ──condition true──▶ pending (or firing)
 *
 * Without a duration a true condition fires at once. Entering firing and entering resolved each
 * notify once; pending and its return to inactive are recorded in the history only. A figure with
 * no data (no requests in the window for a rate) counts as a false condition: a firing alert on
 * a scope that went quiet resolves.
 */
export const ALERT_STATES = ['inactive', 'pending', 'firing', 'resolved'] as const;
export type AlertState = (typeof ALERT_STATES)[number];

export interface StateRecord {
  state: AlertState;
  /** When the alert entered this state. */
  since: Date;
}

export interface Step {
  next: StateRecord;
  /** Set when the state changed. */
  changed: boolean;
  /** The notification this step sends, if any. */
  notify?: 'alert.firing' | 'alert.resolved';
}

export function step(current: StateRecord, conditionHolds: boolean, durationMs: number, now: Date): Step {
  const to = (state: AlertState, notify?: Step['notify']): Step => ({ next: { state, since: now }, changed: true, ...(notify ? { notify } : {}) });
  const stay: Step = { next: current, changed: false };
  switch (current.state) {
    case 'inactive':
    case 'resolved':
      if (!conditionHolds) return stay;
      return durationMs === 0 ? to('firing', 'alert.firing') : to('pending');
    case 'pending':
      if (!conditionHolds) return to('inactive');
      return now.getTime() - current.since.getTime() >= durationMs ? to('firing', 'alert.firing') : stay;
    case 'firing':
      return conditionHolds ? stay : to('resolved', 'alert.resolved');
  }
}
