/**
 * Joins a Gemini base URL and a versioned path. A custom host replaces the default base; one that
 * already ends in the API version (…/v1beta, …/v1) is not given a second one.
 */
export function versionedUrl(base: string, version: string, path: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return `${trimmed.endsWith(`/${version}`) ? trimmed : `${trimmed}/${version}`}/${path}`;
}

/** The model as one path segment: `models/gemini-2.5-flash` and `gemini-2.5-flash` both name it. */
export function modelSegment(model: string): string {
  return encodeURIComponent(model.replace(/^models\//, ''));
}
