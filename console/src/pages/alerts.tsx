import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Alert, Delivery, List, Session } from '../types.js';
import { ErrorNotice, Notice, PageTitle, Time } from '../ui.js';

/** The account's alerts (GET /v1/alerts) and, for one, its delivery log. */
export function Alerts(_props: { session: Session }) {
  const [alerts, setAlerts] = useState<Alert[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [selected, setSelected] = useState<Alert | null>(null);
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [message, setMessage] = useState('');

  useEffect(() => void api<List<Alert>>('GET', '/v1/alerts?limit=100').then((list) => setAlerts(list.items), setError), []);
  const open = (alert: Alert) => {
    setSelected(alert);
    setDeliveries(null);
    setMessage('');
    api<List<Delivery>>('GET', `/v1/alerts/${encodeURIComponent(alert.alert_id)}/deliveries?limit=50`).then((list) => setDeliveries(list.items), setError);
  };
  const sendTest = async (alert: Alert) => {
    setError(null);
    try {
      await api('POST', `/v1/alerts/${encodeURIComponent(alert.alert_id)}/test`);
      setMessage(`A test notification of ${alert.name} was sent to its channels.`);
      open(alert);
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <>
      <PageTitle>Alerts</PageTitle>
      <p class="hint">Alerts are made through <code>POST /v1/alerts</code>; here you watch them and what they sent.</p>
      <ErrorNotice error={error} />
      {message && <Notice>{message}</Notice>}
      {alerts === null ? <p role="status">Loading…</p> : alerts.length === 0 ? <p>No alerts yet.</p> : (
        <div class="scroll" tabIndex={0} role="region" aria-label="Alerts">
          <table>
            <thead><tr><th scope="col">Name</th><th scope="col">Condition</th><th scope="col">Severity</th><th scope="col">Channels</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {alerts.map((alert) => (
                <tr key={alert.alert_id}>
                  <th scope="row">{alert.name}</th>
                  <td><code>{`${alert.metric} ${alert.comparator} ${alert.threshold}`}</code></td>
                  <td>{alert.severity}</td>
                  <td>{alert.channels.join(', ')}</td>
                  <td>{alert.enabled ? alert.state : 'disabled'}</td>
                  <td class="actions">
                    <button type="button" class="secondary" onClick={() => open(alert)} aria-label={`Deliveries of ${alert.name}`}>Deliveries</button>
                    <button type="button" class="secondary" onClick={() => sendTest(alert)} aria-label={`Send a test of ${alert.name}`}>Send a test</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {selected && (
        <section aria-labelledby="deliveries">
          <h2 id="deliveries" tabIndex={-1} ref={(el) => el?.focus()}>Deliveries of {selected.name}</h2>
          {deliveries === null ? <p role="status">Loading…</p> : deliveries.length === 0 ? <p>Nothing sent yet.</p> : (
            <div class="scroll" tabIndex={0} role="region" aria-labelledby="deliveries">
              <table>
                <thead><tr><th scope="col">Created</th><th scope="col">Event</th><th scope="col">Channel</th><th scope="col">To</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last error</th></tr></thead>
                <tbody>
                  {deliveries.map((delivery) => (
                    <tr key={delivery.delivery_id}>
                      <td><Time value={delivery.created_at} /></td>
                      <td>{delivery.event}</td>
                      <td>{delivery.channel}</td>
                      <td>{delivery.destination}</td>
                      <td>{delivery.status}{delivery.last_status_code ? ` (${delivery.last_status_code})` : ''}</td>
                      <td>{delivery.attempts}</td>
                      <td>{delivery.last_error ?? '–'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
    </>
  );
}
