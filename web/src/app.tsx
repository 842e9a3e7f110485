import { useEffect, useState } from 'react';
import { mayHaveSession, resumeSession, signInWithKey, signOut, storedKey, forgetKey, can, type Identity } from './api/identity';
import { IdentityContext } from './identity-context';
import { PAGES } from './pages';
import { Link, navigate, usePath } from './router';
import { SignIn } from './sign-in';
import { Loading } from './components/status';

export function App() {
  const [identity, setIdentity] = useState<Identity | undefined>();
  const [checking, setChecking] = useState(true);

  // A key kept in this tab's sessionStorage, else a console session cookie from SSO (asked
  // about only after an SSO sign-in, so a first visit makes no call that answers 401).
  useEffect(() => {
    const key = storedKey();
    const resume = key ? signInWithKey(key).catch(() => (forgetKey(), undefined)) : mayHaveSession() ? resumeSession() : Promise.resolve(undefined);
    void resume.then((found) => {
      setIdentity(found);
      setChecking(false);
    });
  }, []);

  if (checking) return <Loading what="Checking your sign-in" />;
  if (!identity) return <SignIn onSignedIn={setIdentity} />;
  return (
    <IdentityContext.Provider value={identity}>
      <Shell
        identity={identity}
        onSignOut={() => {
          void signOut(identity);
          setIdentity(undefined);
          navigate('/');
        }}
      />
    </IdentityContext.Provider>
  );
}

function Shell({ identity, onSignOut }: { identity: Identity; onSignOut: () => void }) {
  const path = usePath();
  const pages = PAGES.filter((page) => can(identity, page.scope));
  const page = pages.find((p) => path === p.path || path.startsWith(`${p.path}/`));

  useEffect(() => {
    if (!page && pages[0] && (path === '/' || path === '')) navigate(pages[0].path);
  }, [page, pages, path]);

  useEffect(() => {
    document.title = page ? `${page.title} · gw console` : 'gw console';
    // Moving to a page moves the focus to its heading, as a page load would.
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [page]);

  const Page = page?.component;
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">gw console</span>
        <nav aria-label="Console pages">
          <ul>
            {pages.map((p) => (
              <li key={p.path}>
                <Link to={p.path} aria-current={page === p ? 'page' : undefined}>
                  {p.title}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span title="Signed in as">{identity.label}</span>
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        {Page ? (
          <Page rest={path.slice(page.path.length)} />
        ) : pages.length ? (
          <p>There is no page at {path}.</p>
        ) : (
          <p role="alert">This credential holds none of the scopes the console's pages need.</p>
        )}
      </main>
    </div>
  );
}
