import { useEffect, useState } from 'preact/hooks';
import { api, query } from '../api.js';
import type { AuditEntry, AuditPage, Session } from '../types.js';
import { ErrorNotice, localInputToIso, milliseconds, PageTitle, Time } from '../ui.js';

interface Filters {
  request_id: string;
  endpoint: string;
  status: '' | 'success' | 'error';
  start: string;
  end: string;
  limit: number;
}

const EMPTY: Filters = { request_id: '', endpoint: '', status: '', start: '', end: '', limit: 25 };

/** GET /v1/audit with its filters, a page at a time, and one request's entry in full. */
export function AuditLog(_props: { session: Session }) {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<AuditPage | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [detail, setDetail] = useState<AuditEntry | null>(null);

  useEffect(() => {
    setError(null);
    const path = `/v1/audit${query({
      request_id: filters.request_id.trim(),
      endpoint: filters.endpoint.trim(),
      status: filters.status,
      start_date: localInputToIso(filters.start),
      end_date: localInputToIso(filters.end),
      limit: filters.limit,
      offset,
    })}`;
    api<AuditPage>('GET', path).then(setPage, setError);
  }, [filters, offset]);

  const field = (name: keyof Filters) => (event: Event) => setDraft({ ...draft, [name]: (event.currentTarget as HTMLInputElement).value });
  const apply = (event: Event) => {
    event.preventDefault();
    setDetail(null);
    setOffset(0);
    setFilters({ ...draft, limit: Number(draft.limit) });
  };
  const total = page?.pagination.total ?? 0;
  const shown = page?.entries.length ?? 0;

  return (
    <>
      <PageTitle>Audit log</PageTitle>
      <form class="filters" onSubmit={apply} aria-label="Filters">
        <div><label for="audit-request">Request ID</label><input id="audit-request" value={draft.request_id} onInput={field('request_id')} /></div>
        <div><label for="audit-endpoint">Endpoint</label><input id="audit-endpoint" placeholder="/v1/search" pattern="/.*" value={draft.endpoint} onInput={field('endpoint')} /></div>
        <div>
          <label for="audit-status">Outcome</label>
          <select id="audit-status" value={draft.status} onChange={field('status')}>
            <option value="">any</option><option value="success">success</option><option value="error">error</option>
          </select>
        </div>
        <div><label for="audit-start">From</label><input id="audit-start" type="datetime-local" value={draft.start} onInput={field('start')} /></div>
        <div><label for="audit-end">Until</label><input id="audit-end" type="datetime-local" value={draft.end} onInput={field('end')} /></div>
        <div>
          <label for="audit-limit">Per page</label>
          <select id="audit-limit" value={String(draft.limit)} onChange={field('limit')}>
            {[10, 25, 50, 100].map((n) => <option key={n} value={String(n)}>{n}</option>)}
          </select>
        </div>
        <div><button type="submit">Apply the filters</button></div>
      </form>
      <ErrorNotice error={error} />
      {page && (
        <section aria-labelledby="audit-entries">
          <h2 id="audit-entries">Requests</h2>
          <p role="status" data-testid="audit-range">{total === 0 ? 'No request matches.' : `Requests ${offset + 1}–${offset + shown} of ${total}, newest first.`}</p>
          {shown > 0 && (
            <div class="scroll" tabIndex={0} role="region" aria-labelledby="audit-entries">
              <table data-testid="audit-table">
                <thead><tr><th scope="col">Time</th><th scope="col">Method</th><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col">Latency</th><th scope="col">Key</th><th scope="col">Request ID</th></tr></thead>
                <tbody>
                  {page.entries.map((entry) => (
                    <tr key={entry.request_id}>
                      <td><Time value={entry.timestamp} /></td>
                      <td>{entry.method}</td>
                      <td><code>{entry.endpoint}</code></td>
                      <td><span class={`badge ${entry.status < 400 ? 'active' : 'revoked'}`}>{entry.status}</span></td>
                      <td>{milliseconds(entry.response_time)}</td>
                      <td>{entry.key_id ?? '–'}</td>
                      <td><button type="button" class="link" onClick={() => setDetail(entry)} aria-label={`Details of request ${entry.request_id}`}><code>{entry.request_id}</code></button></td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <nav class="row" aria-label="Pages of the audit log">
            <button type="button" class="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - filters.limit))}>Newer</button>
            <button type="button" class="secondary" disabled={!page.pagination.has_more} onClick={() => setOffset(offset + filters.limit)}>Older</button>
          </nav>
        </section>
      )}
      {detail && <RequestDetail entry={detail} onClose={() => setDetail(null)} />}
    </>
  );
}

function RequestDetail(props: { entry: AuditEntry; onClose(): void }) {
  return (
    <section class="detail" aria-labelledby="request-detail" data-testid="request-detail">
      <h2 id="request-detail" tabIndex={-1} ref={(el) => el?.focus()}>Request {props.entry.request_id}</h2>
      <dl>
        {Object.entries(props.entry).map(([name, value]) => (
          <div key={name}><dt>{name}</dt><dd data-field={name}>{typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}</dd></div>
        ))}
      </dl>
      <button type="button" class="secondary" onClick={props.onClose}>Close</button>
    </section>
  );
}
