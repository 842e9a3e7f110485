import { cloneElement, useId, type ReactElement } from 'react';

/** A control with its visible label (every control in the console has one), tied by id. */
export function Field({ label, children, hint }: { label: string; children: ReactElement<{ id?: string; 'aria-describedby'?: string }>; hint?: string }) {
  const id = useId();
  const hintId = `${id}-hint`;
  const describedBy = [children.props['aria-describedby'], hint ? hintId : undefined].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      {cloneElement(children, { id, 'aria-describedby': describedBy })}
      {hint && (
        <span className="hint" id={hintId}>
          {hint}
        </span>
      )}
    </div>
  );
}
