import { useEffect, useId, useRef, useState } from 'react';
import { validatorFor } from '../../api/spec-validation';
import type { ValidatedSchema } from '../../api/validated-schemas';
import type { MountedEditor } from './view';

/**
 * A JSON text box with its visible label. CodeMirror (./view.ts) is loaded on first use, so pages
 * without an editor do not download it; until it arrives (or if it cannot), a plain textarea edits
 * the same text. With `schema`, the spec's schema marks errors at the field; `wrapKey` says the text
 * is the value of that key in the schema's body (the checks of a guardrail body, say).
 */
export function CodeEditor({ label, hint, value, onChange, schema, wrapKey, problem, rows = 12 }: { label: string; hint?: string; value: string; onChange: (text: string) => void; schema?: ValidatedSchema; wrapKey?: string; problem?: string | null; rows?: number }) {
  const id = useId();
  const labelId = `${id}-label`;
  const hintId = `${id}-hint`;
  const problemId = `${id}-problem`;
  // The problem line is always there (empty when all is well), so the editor can name it from the start.
  const describedBy = [hint ? hintId : undefined, problemId].filter(Boolean).join(' ');
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<MountedEditor>(undefined);
  const latest = useRef({ value, onChange });
  latest.current = { value, onChange };
  const [mounted, setMounted] = useState(false);

  useEffect(() => {
    let cancelled = false;
    import('./view')
      .then(({ mountEditor }) => {
        if (cancelled || !host.current) return;
        editor.current = mountEditor(host.current, {
          doc: latest.current.value,
          labelledBy: labelId,
          describedBy,
          validate: schema ? validatorFor(schema) : undefined,
          wrapKey,
          onChange: (text) => latest.current.onChange(text),
        });
        setMounted(true);
      })
      .catch(() => undefined); // the textarea stays
    return () => {
      cancelled = true;
      editor.current?.destroy();
      editor.current = undefined;
    };
    // The editor is made once; its text follows `value` below.
  }, []);

  useEffect(() => editor.current?.setDoc(value), [value, mounted]);

  return (
    <div className="field code-field">
      <label className="field-label" id={labelId} htmlFor={mounted ? undefined : `${id}-text`}>
        {label}
      </label>
      <div ref={host} className="code-mirror-host" data-testid="code-editor" />
      {!mounted && <textarea id={`${id}-text`} className="code-editor" rows={rows} spellCheck={false} value={value} onChange={(e) => onChange(e.target.value)} aria-invalid={problem ? true : undefined} aria-describedby={describedBy} />}
      {hint && (
        <span className="hint" id={hintId}>
          {hint}
        </span>
      )}
      <p className={problem ? 'error' : 'sr-only'} role={problem ? 'alert' : undefined} id={problemId} data-testid="json-problem">
        {problem ?? ''}
      </p>
    </div>
  );
}
