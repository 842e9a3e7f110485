import { useEffect, useRef, useState } from 'react';

/** A new secret, shown this once: gw never shows it again. */
export function SecretOnce({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  const [copied, setCopied] = useState(false);
  useEffect(() => box.current?.focus(), []);
  return (
    <div className="secret" role="region" aria-label={`Secret of ${name}`} tabIndex={-1} ref={box}>
      <p>
        <strong>Copy the secret of “{name}” now.</strong> gw shows it only this once.
      </p>
      <code className="mono" data-testid="new-secret">
        {secret}
      </code>
      <div className="actions">
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard?.writeText(secret).then(() => setCopied(true));
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          I have copied it
        </button>
      </div>
    </div>
  );
}
