import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import { specValidatorsPlugin } from './build/spec-validators-plugin.ts';

// Served by gw at /console (server/console.ts). `npm run dev` proxies the API to a gw on GW_URL.
const gw = process.env.GW_URL ?? 'http://127.0.0.1:8787';

export default defineConfig({
  base: '/console/',
  plugins: [react(), specValidatorsPlugin()],
  // The spec validators take seconds to compile (the spec is large): no timing warning for it.
  build: { outDir: 'dist', emptyOutDir: true, assetsInlineLimit: 0, chunkSizeWarningLimit: 1024, rolldownOptions: { checks: { pluginTimings: false } } },
  server: { proxy: { '/v1': gw, '/v2': gw, '/openapi.json': gw } },
  test: { environment: 'happy-dom', include: ['src/**/*.test.{ts,tsx}'] },
});
