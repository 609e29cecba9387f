import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure } from '../api.js';
import type { Session, SsoConfig } from '../types.js';
import { ErrorNotice, Notice, PageTitle, Time } from '../ui.js';

/** The account's SAML identity provider (POST/GET/DELETE /v1/sso) and what to give it. */
export function SsoSettings(props: { session: Session }) {
  const [config, setConfig] = useState<SsoConfig | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [message, setMessage] = useState('');
  const [form, setForm] = useState({ provider: '', entity_id: '', sso_url: '', certificate: '' });

  useEffect(() => {
    api<SsoConfig>('GET', '/v1/sso').then((read) => {
      setConfig(read);
      setForm({ provider: read.provider, entity_id: read.entity_id, sso_url: read.sso_url, certificate: '' });
    }, (failure) => (failure instanceof ApiFailure && failure.status === 404 ? setConfig(null) : setError(failure)));
  }, []);

  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const saved = await api<SsoConfig>('POST', '/v1/sso', { body: form });
      setConfig(saved);
      setForm({ ...form, certificate: '' });
      setMessage('Saved: sign-ins through this identity provider work from now on.');
    } catch (failure) {
      setError(failure);
    }
  };
  const remove = async () => {
    setError(null);
    try {
      await api('DELETE', '/v1/sso');
      setConfig(null);
      setMessage('Removed: SSO sign-ins stop now.');
    } catch (failure) {
      setError(failure);
    }
  };
  const field = (name: keyof typeof form) => (event: Event) => setForm({ ...form, [name]: (event.currentTarget as HTMLInputElement).value });
  const signInLink = `${location.origin}/console/sign-in?account=${encodeURIComponent(props.session.account_id)}`;

  return (
    <>
      <PageTitle>Single sign-on</PageTitle>
      <ErrorNotice error={error} />
      {message && <Notice>{message}</Notice>}
      {config && (
        <section aria-labelledby="sso-current">
          <h2 id="sso-current">Identity provider</h2>
          <dl class="pairs">
            <div><dt>Provider</dt><dd>{config.provider}</dd></div>
            <div><dt>Entity ID</dt><dd><code>{config.entity_id}</code></dd></div>
            <div><dt>Sign-in URL</dt><dd><code>{config.sso_url}</code></dd></div>
            <div><dt>Certificate</dt><dd><code>{config.certificate_fingerprint}</code>, expires <Time value={config.certificate_expires_at} /></dd></div>
          </dl>
          <h2>For the identity provider</h2>
          <dl class="pairs">
            <div><dt>Metadata</dt><dd><a href={config.service_provider.metadata_url}>{config.service_provider.metadata_url}</a></dd></div>
            <div><dt>Entity ID (audience)</dt><dd><code>{config.service_provider.entity_id}</code></dd></div>
            <div><dt>Assertion consumer service</dt><dd><code>{config.service_provider.acs_url}</code></dd></div>
            <div><dt>Console sign-in link for members</dt><dd><a href={signInLink}>{signInLink}</a></dd></div>
          </dl>
          <button type="button" class="danger" onClick={remove}>Remove single sign-on</button>
        </section>
      )}
      {config === null && <p>Single sign-on is not configured for account {props.session.account_id}.</p>}
      {config !== undefined && (
        <section aria-labelledby="sso-form">
          <h2 id="sso-form">{config ? 'Replace the configuration' : 'Configure'}</h2>
          <form class="grid" onSubmit={save}>
            <div><label for="sso-provider">Provider name</label><input id="sso-provider" required value={form.provider} onInput={field('provider')} /></div>
            <div><label for="sso-entity">Identity provider entity ID</label><input id="sso-entity" required value={form.entity_id} onInput={field('entity_id')} /></div>
            <div><label for="sso-url">Identity provider sign-in URL</label><input id="sso-url" type="url" required value={form.sso_url} onInput={field('sso_url')} /></div>
            <div class="wide"><label for="sso-cert">Signing certificate (PEM)</label><textarea id="sso-cert" required rows={6} value={form.certificate} onInput={field('certificate')} /></div>
            <div><button type="submit">Save</button></div>
          </form>
        </section>
      )}
    </>
  );
}
