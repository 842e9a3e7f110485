import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../server/app.js';
import { bootstrap } from '../../server/bootstrap.js';
import { loadConfig } from '../../server/config.js';
import { closeServices, createServices } from '../../server/services-factory.js';
import { reportReady } from './child-ipc.js';

// gw as `make run` builds it (SQLite store, API-key auth, validation, request logs), configured
// by the environment scripts/bench.ts gives this process.
const config = loadConfig(process.env);
const services = await createServices(config);
await bootstrap(services);
const app = await createApp(services);
const server = createServer({ keepAliveTimeout: 65_000 }, app.listener);
server.listen(0, '127.0.0.1', () => reportReady((server.address() as AddressInfo).port));

// The parent asks for a profile of exactly one load run, so boot and idle time stay out of it:
// CPU time (BENCH_PROFILE=1) or sampled allocations (BENCH_PROFILE=alloc).
const inspector = new Session();
const allocations = process.env.BENCH_PROFILE === 'alloc';
process.on('message', (message: { profile?: 'start' | 'stop'; file?: string }) => {
  if (!message.profile) return;
  void (async () => {
    if (message.profile === 'start') {
      inspector.connect();
      if (allocations) // Collected objects included: the point is the allocation rate, not what stays alive.
        await inspector.post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
      else {
        await inspector.post('Profiler.enable');
        await inspector.post('Profiler.start');
      }
    } else {
      const { profile } = allocations ? await inspector.post('HeapProfiler.stopSampling') : await inspector.post('Profiler.stop');
      writeFileSync(message.file!, JSON.stringify(profile));
      inspector.disconnect();
    }
    process.send!({ profile: message.profile });
  })();
});

process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void closeServices(services).finally(() => process.exit(0));
});
