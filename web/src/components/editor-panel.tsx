import { useEffect, useRef, type FormEvent, type ReactNode } from 'react';
import { ErrorNote } from './status';

/**
 * The one shape of every create and edit form: a titled panel, its fields, Save and Cancel, and
 * the error (the browser's check or the API's answer). The title takes the focus when it opens.
 */
export function EditorPanel({ title, submitLabel, busy, error, onSubmit, onCancel, children }: { title: string; submitLabel: string; busy: boolean; error: unknown; onSubmit: () => void; onCancel: () => void; children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <form className="panel" onSubmit={submit} aria-label={title} noValidate>
      <h2 tabIndex={-1} ref={heading}>
        {title}
      </h2>
      {children}
      <div className="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorNote error={error} title="Not saved" />
    </form>
  );
}
