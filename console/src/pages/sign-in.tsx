import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Session } from '../types.js';
import { BASE, ErrorNotice, PageTitle } from '../ui.js';

/** The account whose SSO sign-in was used last on this browser: its link is offered first next time. */
const SSO_ACCOUNT = 'sev-console-sso-account';

function ssoLoginUrl(accountId: string): string {
  return `/v1/sso/${encodeURIComponent(accountId)}/login?return_to=${encodeURIComponent(`${BASE}/keys`)}`;
}

/**
 * Sign-in: an API key (self-hosters; the key is sent once, in Authorization, and kept nowhere
 * by the page: the session cookie is HttpOnly), or the account's SAML identity provider.
 * `?account=<id>` (the link the SSO settings page shows) names the account for SSO.
 */
export function SignIn(props: { onSignedIn(session: Session): void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const named = new URLSearchParams(location.search).get('account') ?? localStorage.getItem(SSO_ACCOUNT) ?? '';
  const [account, setAccount] = useState(named);

  const withKey = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = await api<Session>('POST', '/v1/session', { key: key.trim() });
      setKey('');
      props.onSignedIn(session);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const withSso = (event: Event) => {
    event.preventDefault();
    const id = account.trim();
    if (!id) return;
    localStorage.setItem(SSO_ACCOUNT, id);
    location.assign(ssoLoginUrl(id));
  };

  return (
    <main id="main" class="narrow">
      <PageTitle>Sign in to the SEV console</PageTitle>
      <section aria-labelledby="with-key">
        <h2 id="with-key">With an API key</h2>
        <form onSubmit={withKey}>
          <label for="api-key">API key</label>
          <input id="api-key" name="api-key" type="password" autocomplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
          <p class="hint">The key starts a session of the console; the page does not keep it.</p>
          <button type="submit" disabled={busy}>Sign in with the key</button>
        </form>
        <ErrorNotice error={error} />
      </section>
      <section aria-labelledby="with-sso">
        <h2 id="with-sso">With single sign-on</h2>
        <form onSubmit={withSso}>
          <label for="sso-account">Account ID</label>
          <input id="sso-account" name="account" autocomplete="organization" required value={account} onInput={(e) => setAccount(e.currentTarget.value)} />
          <p class="hint">Your account's identity provider signs you in, then brings you back here.</p>
          <button type="submit">Sign in with SSO</button>
        </form>
      </section>
    </main>
  );
}
