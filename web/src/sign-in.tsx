import { useState, type FormEvent } from 'react';
import { SSO_RETURN, signInWithKey, ssoAvailable, type Identity } from './api/identity';
import { Field } from './components/field';
import { ErrorNote } from './components/status';
import { useAsync } from './use-async';

/** Sign in with a gw API key (kept in this tab only), or with the organisation's SSO when gw says it is on. */
export function SignIn({ onSignedIn }: { onSignedIn: (identity: Identity) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const sso = useAsync(ssoAvailable, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await signInWithKey(key.trim()));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="sign-in" id="main">
      <h1>gw console</h1>
      <form onSubmit={submit} aria-describedby="key-note">
        <Field label="API key">
          <input type="password" name="api_key" autoComplete="off" required value={key} onChange={(e) => setKey(e.target.value)} autoFocus />
        </Field>
        <p id="key-note" className="hint">
          The key stays in this browser tab (session storage) and is sent only to this gw.
        </p>
        <button type="submit" disabled={busy || !key.trim()}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <ErrorNote error={error} title="Sign-in failed" />
      </form>
      {sso.data && (
        <>
          <p className="or">or</p>
          <a className="button secondary" href={`/v1/auth/sso/login?return_to=${encodeURIComponent(SSO_RETURN)}`}>
            Sign in with SSO
          </a>
        </>
      )}
    </main>
  );
}
