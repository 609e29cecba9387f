import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { KeyRecord, List, Session } from '../types.js';
import { ErrorNotice, localInputToIso, Notice, PageTitle, Time } from '../ui.js';

const SCOPES = ['search', 'extract', 'summarize', 'validate', 'cache', 'monitor', 'index', 'admin'];

/** A secret the API returned once (creation, rotation): shown until dismissed, then gone for good. */
interface Revealed {
  record: KeyRecord;
  secret: string;
  graceUntil?: string;
}

export function Keys(_props: { session: Session }) {
  const [keys, setKeys] = useState<KeyRecord[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  const [message, setMessage] = useState('');
  const [revoking, setRevoking] = useState<string | null>(null);

  const load = () => api<List<KeyRecord>>('GET', '/v1/auth/keys?limit=100').then((list) => setKeys(list.items), setError);
  useEffect(() => void load(), []);

  const act = async (work: () => Promise<void>) => {
    setError(null);
    setMessage('');
    try {
      await work();
      await load();
    } catch (failure) {
      setError(failure);
    }
  };

  const rotate = (key: KeyRecord) => act(async () => {
    const rotated = await api<KeyRecord>('POST', `/v1/auth/keys/${encodeURIComponent(key.id)}/rotate`);
    setRevealed({ record: rotated, secret: rotated.new_key ?? rotated.key!, graceUntil: rotated.old_key_expires_at });
  });

  return (
    <>
      <PageTitle>Keys</PageTitle>
      <ErrorNotice error={error} />
      {message && <Notice>{message}</Notice>}
      {revealed && <SecretOnce revealed={revealed} onDone={() => setRevealed(null)} />}
      <CreateKey onCreated={(record) => act(async () => setRevealed({ record, secret: record.key! }))} onError={setError} />
      <section aria-labelledby="key-list">
        <h2 id="key-list">Your keys</h2>
        {keys === null ? <p role="status">Loading…</p> : keys.length === 0 ? <p>No keys yet.</p> : (
          <div class="scroll" tabIndex={0} role="region" aria-labelledby="key-list">
            <table>
              <thead>
                <tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Type</th><th scope="col">Permissions</th><th scope="col">Rate limit</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr>
              </thead>
              <tbody>
                {keys.map((key) => (
                  <tr key={key.id} data-key-id={key.id}>
                    <th scope="row">{key.name}</th>
                    <td><code>{key.key_hint}</code></td>
                    <td>{key.type}{key.mode === 'test' ? ' (sandbox)' : ''}</td>
                    <td>{key.permissions.join(', ')}</td>
                    <td>{key.rate_limit}/min</td>
                    <td><Time value={key.expires_at} /></td>
                    <td class="status">
                      <span class={`badge ${key.status}`}>{key.status}</span>
                      {key.revoke_at && key.status === 'active' && <> · revokes at <Time value={key.revoke_at} /></>}
                    </td>
                    <td><Time value={key.last_used_at} /></td>
                    <td class="actions">
                      {key.status === 'active' && (
                        <>
                          <button type="button" class="secondary" onClick={() => rotate(key)} aria-label={`Rotate ${key.name}`}>Rotate</button>
                          <button type="button" class="danger" onClick={() => setRevoking(revoking === key.id ? null : key.id)} aria-expanded={revoking === key.id} aria-label={`Revoke ${key.name}…`}>Revoke…</button>
                        </>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {revoking && keys?.find((key) => key.id === revoking) && (
          <RevokeForm
            record={keys.find((key) => key.id === revoking)!}
            onCancel={() => setRevoking(null)}
            onRevoke={(at) => act(async () => {
              const record = await api<KeyRecord>('POST', `/v1/auth/keys/${encodeURIComponent(revoking)}/revoke`, { body: at ? { revoke_at: at } : {} });
              setRevoking(null);
              setMessage(at ? `${record.name} will be revoked at ${new Date(at).toLocaleString()}.` : `${record.name} is revoked: the API refuses it from now on.`);
            })}
          />
        )}
      </section>
    </>
  );
}

function CreateKey(props: { onCreated(record: KeyRecord): void; onError(error: unknown): void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<'standard' | 'scoped'>('standard');
  const [scopes, setScopes] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  const [rateLimit, setRateLimit] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      const body: Record<string, unknown> = { name: name.trim(), type };
      if (type === 'scoped') body.permissions = scopes;
      const expiresAt = localInputToIso(expires);
      if (expiresAt) body.expires_at = expiresAt;
      if (rateLimit) body.rate_limit = Number(rateLimit);
      const record = await api<KeyRecord>('POST', '/v1/auth/keys', { body });
      setName('');
      setScopes([]);
      setExpires('');
      setRateLimit('');
      props.onCreated(record);
    } catch (failure) {
      props.onError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="create-key">
      <h2 id="create-key">Create a key</h2>
      <form onSubmit={submit} class="grid">
        <div>
          <label for="key-name">Name</label>
          <input id="key-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <fieldset>
          <legend>Type</legend>
          <label class="inline"><input type="radio" name="key-type" value="standard" checked={type === 'standard'} onChange={() => setType('standard')} /> Standard: every scope</label>
          <label class="inline"><input type="radio" name="key-type" value="scoped" checked={type === 'scoped'} onChange={() => setType('scoped')} /> Scoped: only the scopes chosen</label>
        </fieldset>
        {type === 'scoped' && (
          <fieldset>
            <legend>Scopes</legend>
            {SCOPES.map((scope) => (
              <label class="inline" key={scope}>
                <input
                  type="checkbox"
                  name="scope"
                  value={scope}
                  checked={scopes.includes(scope)}
                  onChange={(e) => setScopes(e.currentTarget.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))}
                /> {scope}
              </label>
            ))}
          </fieldset>
        )}
        <div>
          <label for="key-expires">Expires (optional)</label>
          <input id="key-expires" type="datetime-local" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
        </div>
        <div>
          <label for="key-rate">Rate limit per minute (optional, at most the plan's)</label>
          <input id="key-rate" type="number" min={1} inputMode="numeric" value={rateLimit} onInput={(e) => setRateLimit(e.currentTarget.value)} />
        </div>
        <div>
          <button type="submit" disabled={busy || (type === 'scoped' && scopes.length === 0)}>Create the key</button>
        </div>
      </form>
    </section>
  );
}

function SecretOnce(props: { revealed: Revealed; onDone(): void }) {
  const [copied, setCopied] = useState('');
  const { record, secret, graceUntil } = props.revealed;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser refused the clipboard: select the secret and copy it.');
    }
  };
  return (
    <section class="secret" aria-labelledby="secret-title" data-testid="secret-once">
      <h2 id="secret-title" tabIndex={-1} ref={(el) => el?.focus()}>{graceUntil ? `New secret of ${record.name}` : `Secret of ${record.name}`}</h2>
      <p>Copy it now: this is the only time the console shows it.</p>
      <label for="secret-value">Secret</label>
      <input id="secret-value" readOnly value={secret} onFocus={(e) => e.currentTarget.select()} />
      <div class="row">
        <button type="button" onClick={copy}>Copy</button>
        <button type="button" class="secondary" onClick={props.onDone}>I have copied it</button>
      </div>
      {copied && <p role="status">{copied}</p>}
      {graceUntil && (
        <p class="grace" data-testid="grace">The old secret keeps working for 24 hours, until <Time value={graceUntil} />, so that clients can move to the new one.</p>
      )}
    </section>
  );
}

function RevokeForm(props: { record: KeyRecord; onCancel(): void; onRevoke(at: string | undefined): void }) {
  const [when, setWhen] = useState<'now' | 'later'>('now');
  const [at, setAt] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    props.onRevoke(when === 'now' ? undefined : localInputToIso(at));
  };
  return (
    <form class="revoke" onSubmit={submit} aria-labelledby="revoke-title">
      <h3 id="revoke-title" tabIndex={-1} ref={(el) => el?.focus()}>Revoke {props.record.name}</h3>
      <fieldset>
        <legend>When</legend>
        <label class="inline"><input type="radio" name="revoke-when" value="now" checked={when === 'now'} onChange={() => setWhen('now')} /> Now</label>
        <label class="inline"><input type="radio" name="revoke-when" value="later" checked={when === 'later'} onChange={() => setWhen('later')} /> At a time</label>
      </fieldset>
      {when === 'later' && (
        <div>
          <label for="revoke-at">Revoke at</label>
          <input id="revoke-at" type="datetime-local" required value={at} onInput={(e) => setAt(e.currentTarget.value)} />
        </div>
      )}
      <div class="row">
        <button type="submit" class="danger">{when === 'now' ? 'Revoke now' : 'Schedule the revocation'}</button>
        <button type="button" class="secondary" onClick={props.onCancel}>Cancel</button>
      </div>
    </form>
  );
}
