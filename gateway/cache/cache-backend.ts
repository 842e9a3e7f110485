/** Where simple-cache entries live: memory (one process) or Redis (shared). Values are JSON text. */
export interface CacheBackend {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, maxAgeSeconds: number): Promise<void>;
}
