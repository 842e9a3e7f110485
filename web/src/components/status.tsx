import { ApiFailure } from '../api/client';

/** The API's own error message (and code), announced to screen readers. */
export function ErrorNote({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const failure = error instanceof ApiFailure ? error : undefined;
  return (
    <div className="error" role="alert">
      {title && <strong>{title}: </strong>}
      {(error as Error).message}
      {failure && failure.code && <code className="code">{failure.code}</code>}
    </div>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="loading" role="status">
      {what}…
    </p>
  );
}

export function Empty({ children }: { children: React.ReactNode }) {
  return <p className="empty">{children}</p>;
}
