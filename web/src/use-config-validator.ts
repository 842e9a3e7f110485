import type { ValidateFunction } from 'ajv';
import { configValidator } from './api/config-schema';
import { useAsync } from './use-async';

let cached: Promise<ValidateFunction> | undefined;

/** The Config schema of the running gw's spec (GET /openapi.json, public), compiled once per page load. */
export function useConfigValidator() {
  return useAsync(() => {
    cached ??= fetch('/openapi.json')
      .then((res) => {
        if (!res.ok) throw new Error(`GET /openapi.json answered ${res.status}`);
        return res.json() as Promise<Record<string, unknown>>;
      })
      .then(configValidator)
      .catch((error: unknown) => {
        cached = undefined;
        throw error;
      });
    return cached;
  }, []);
}
