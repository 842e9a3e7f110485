import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { renderChatRequest } from '../../gateway/prompts/render-prompt.js';
import { createApp } from '../../server/app.js';
import { bootstrap } from '../../server/bootstrap.js';
import { loadConfig } from '../../core/config.js';
import { closeServices, createServices } from '../../server/services-factory.js';
import { timedListener } from './call-phases.js';
import { reportReady } from './child-ipc.js';

// gw as `make run` builds it (SQLite store, API-key auth, validation, request logs), configured
// by the environment scripts/bench.ts gives this process.
const config = loadConfig(process.env);
const services = await createServices(config);
const boot = await bootstrap(services);
const app = await createApp(services);
const server = createServer({ keepAliveTimeout: 65_000 }, timedListener(app.listener));
server.on('upgrade', app.sockets.upgrade);
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

// What a prompt completion does beyond the chat call, timed alone in CPU time: resolving the
// address (a memory hit after the first call) and rendering the template. Wall-clock load tests
// on a busy machine cannot resolve a difference this small; this can.
process.on('message', (message: { promptWork?: { address: string; body: Record<string, unknown>; iterations: number } }) => {
  if (!message.promptWork) return;
  const { address, body, iterations } = message.promptWork;
  void (async () => {
    const viewer = { organisationId: boot.organisationId, workspaceId: null };
    await services.promptLibrary.resolve(viewer, address);
    const before = process.cpuUsage();
    for (let i = 0; i < iterations; i++) renderChatRequest(await services.promptLibrary.resolve(viewer, address), body);
    const used = process.cpuUsage(before);
    process.send!({ promptWorkMicros: (used.user + used.system) / iterations });
  })();
});

process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void closeServices(services).finally(() => process.exit(0));
});
