/** How numbers read in the console. */
export const fmt = {
  count: (n: number) => n.toLocaleString('en', { maximumFractionDigits: 0 }),
  usd: (n: number) => (n === 0 ? '$0' : n < 0.01 ? `$${n.toPrecision(2)}` : `$${n.toLocaleString('en', { maximumFractionDigits: 2 })}`),
  ms: (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${Math.round(n)} ms`),
  percent: (n: number) => `${(n * 100).toFixed(1)}%`,
  time: (iso: string) => new Date(iso).toLocaleString(),
};
