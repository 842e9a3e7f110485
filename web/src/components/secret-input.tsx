import { Field } from './field';

/**
 * A secret typed in and never shown back: a password box that starts empty. When editing, the
 * stored secret is named only by gw's masked form, and an empty box keeps it.
 */
export function SecretInput({ label, value, onChange, masked, required = false }: { label: string; value: string; onChange: (value: string) => void; masked?: string | null; required?: boolean }) {
  const hint = masked ? `Stored as ${masked}; leave empty to keep it` : 'Write-only: gw stores it encrypted and shows it masked';
  return (
    <Field label={label} hint={hint}>
      <input type="password" autoComplete="new-password" spellCheck={false} required={required} value={value} onChange={(e) => onChange(e.target.value)} data-secret="true" />
    </Field>
  );
}
