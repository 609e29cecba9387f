import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Session } from '../types.js';
import { BASE, ErrorNotice, PageTitle } from '../ui.js';

/**
 * The page an invitation e-mail links to: the token is in the fragment (never sent to a server by
 * the browser), posted once to POST /v1/invitations/accept, which starts the member's session.
 */
export function AcceptInvitation(props: { onSignedIn(session: Session): void }) {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
  const [error, setError] = useState<unknown>(token ? null : new Error('This link carries no invitation token.'));
  useEffect(() => {
    if (!token) return;
    // The token is used once: out of the address bar before anything else can read or bookmark it.
    history.replaceState(null, '', `${BASE}/accept-invitation`);
    api<Session>('POST', '/v1/invitations/accept', { body: { token } }).then(props.onSignedIn, setError);
  }, []);
  return (
    <main id="main" class="narrow">
      <PageTitle>Accept an invitation</PageTitle>
      {error ? <ErrorNotice error={error} /> : <p role="status">Joining the team…</p>}
      <p><a href={`${BASE}/sign-in`}>Go to the sign-in page</a></p>
    </main>
  );
}
