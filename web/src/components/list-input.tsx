import { useState, type InputHTMLAttributes } from 'react';

type Props<T> = { value: T[] | undefined; onChange: (value: T[] | undefined) => void } & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>;

/**
 * A comma-separated list in one text box. The typed text is kept while it means the same list, so
 * "429, " is not rewritten to "429" under the cursor; a new list from outside replaces it.
 */
function ListInput<T>({ value, onChange, parse, ...rest }: Props<T> & { parse: (part: string) => T | undefined }) {
  const shown = (value ?? []).join(', ');
  const [draft, setDraft] = useState(shown);
  const read = (text: string) => text.split(',').map((s) => s.trim()).filter(Boolean).map(parse).filter((v): v is T => v !== undefined);
  const text = read(draft).join(', ') === shown ? draft : shown;
  return (
    <input
      {...rest}
      value={text}
      onChange={(e) => {
        setDraft(e.target.value);
        const list = read(e.target.value);
        onChange(list.length ? list : undefined);
      }}
    />
  );
}

export function TextListInput(props: Props<string>) {
  return <ListInput<string> {...props} parse={(s) => s} />;
}

export function NumberListInput(props: Props<number>) {
  return <ListInput<number> {...props} inputMode="numeric" parse={(s) => (/^\d+$/.test(s) ? Number(s) : undefined)} />;
}
