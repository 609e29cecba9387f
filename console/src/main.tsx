import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, useCsrfToken, whenSignedOut } from './api.js';
import { canManageKeys, canMonitor, isAdmin } from './permissions.js';
import type { Session } from './types.js';
import { BASE, Link, navigate } from './ui.js';
import { SignIn } from './pages/sign-in.js';
import { AcceptInvitation } from './pages/accept-invitation.js';
import { Keys } from './pages/keys.js';
import { UsagePage } from './pages/usage.js';
import { AuditLog } from './pages/audit.js';
import { Alerts } from './pages/alerts.js';
import { TeamPage } from './pages/team.js';
import { SsoSettings } from './pages/sso.js';
import './console.css';

interface PageDef {
  path: string;
  title: string;
  allowed(session: Session): boolean;
  view(props: { session: Session }): preact.JSX.Element;
}

const PAGES: PageDef[] = [
  { path: 'keys', title: 'Keys', allowed: canManageKeys, view: Keys },
  { path: 'usage', title: 'Usage', allowed: canMonitor, view: UsagePage },
  { path: 'audit', title: 'Audit log', allowed: canMonitor, view: AuditLog },
  { path: 'alerts', title: 'Alerts', allowed: canMonitor, view: Alerts },
  { path: 'team', title: 'Team', allowed: isAdmin, view: TeamPage },
  { path: 'sso', title: 'Single sign-on', allowed: isAdmin, view: SsoSettings },
];

function currentPath(): string {
  return location.pathname.replace(/\/+$/, '');
}

function App() {
  const [path, setPath] = useState(currentPath());
  const [session, setSession] = useState<Session | null | undefined>(undefined);

  useEffect(() => {
    const moved = () => setPath(currentPath());
    addEventListener('popstate', moved);
    whenSignedOut(() => setSession(null));
    api<Session>('GET', '/v1/session').then(setSession, () => setSession(null));
    return () => removeEventListener('popstate', moved);
  }, []);
  useEffect(() => useCsrfToken(session?.csrf_token ?? null), [session]);

  const signedIn = (started: Session) => {
    useCsrfToken(started.csrf_token);
    setSession(started);
    const first = PAGES.find((page) => page.allowed(started));
    navigate(`${BASE}/${first?.path ?? 'keys'}`);
  };

  if (path === `${BASE}/accept-invitation`) return <AcceptInvitation onSignedIn={signedIn} />;
  if (session === undefined) return <main id="main"><p role="status">Loading…</p></main>;
  if (session === null) return <SignIn onSignedIn={signedIn} />;

  const allowed = PAGES.filter((page) => page.allowed(session));
  const name = path.slice(BASE.length + 1);
  const page = allowed.find((candidate) => candidate.path === name);
  // /console, /console/sign-in or a page this session may not use: its first page, in the address bar too.
  const first = allowed[0];
  if (!page && first) history.replaceState(null, '', `${BASE}/${first.path}`);
  const shown = page ?? allowed[0];
  document.title = `${shown?.title ?? 'Console'} · SEV console`;
  const signOut = async () => {
    await api('DELETE', '/v1/session').catch(() => undefined);
    useCsrfToken(null);
    setSession(null);
    navigate(`${BASE}/sign-in`);
  };
  const View = shown?.view;
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <span class="brand">SEV console</span>
        <nav aria-label="Console">
          <ul>
            {allowed.map((item) => (
              <li key={item.path}><Link href={`${BASE}/${item.path}`} current={item === shown}>{item.title}</Link></li>
            ))}
          </ul>
        </nav>
        <span class="who" data-testid="who">
          {session.member ? `${session.member.email} (${session.member.role})` : `key ${session.key_id ?? 'master'}`} · {session.account_id}
        </span>
        <button type="button" class="secondary" onClick={signOut}>Sign out</button>
      </header>
      <main id="main">
        {View ? <View key={shown!.path} session={session} /> : <p>This session may use no page of the console.</p>}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
