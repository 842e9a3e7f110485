/** A JSON value as indented text, in a focusable scroll box (keyboard users can scroll it). */
export function JsonView({ value, label }: { value: unknown; label: string }) {
  return (
    <pre className="json" tabIndex={0} aria-label={label}>
      {value === undefined ? '—' : JSON.stringify(value, null, 2)}
    </pre>
  );
}
