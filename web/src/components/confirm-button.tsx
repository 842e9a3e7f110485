import { useState } from 'react';

/**
 * A destructive action that asks once more: "Delete x" turns into "Confirm deleting x" and
 * "Cancel". Without the scope it is shown disabled, saying which scope it needs.
 */
export function ConfirmButton({ verb, gerund, name, scope, allowed, onConfirm }: { verb: string; gerund: string; name: string; scope: string; allowed: boolean; onConfirm: () => Promise<void> | void }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="danger" disabled={!allowed} title={allowed ? undefined : `Needs ${scope}`} onClick={() => setAsking(true)} aria-label={`${verb} ${name}`}>
        {verb}
      </button>
    );
  }
  return (
    <>
      <button
        type="button"
        className="danger"
        autoFocus
        onClick={() => {
          setAsking(false);
          void onConfirm();
        }}
        aria-label={`Confirm ${gerund} ${name}`}
      >
        Confirm {verb.toLowerCase()}
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </>
  );
}
