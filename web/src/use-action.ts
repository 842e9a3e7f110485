import { useState } from 'react';

/** A problem found in the browser before anything is sent (shown like an API error). */
export class FormProblem extends Error {}

/** Runs one write at a time and keeps its error (the API's, or a FormProblem) for the form to show. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async (work: () => Promise<void>): Promise<void> => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}
