import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import path from 'node:path';
import express from 'express';
import { handlers } from '../handlers/index.js';
import { createApi } from './api.js';
import { consoleRouter } from './console.js';
import { createDispatcher } from './http.js';
import type { Services } from './services.js';
import { projectRoot } from './project-root.js';
import { loadSpec } from './spec-document.js';

export { loadSpec };

export interface App {
  /** The request listener to hand to http.createServer (or to supertest). */
  listener: RequestListener;
}

/**
 * Gateway calls skip express: its middleware stack costs more than half of Node's throughput
 * ceiling. They share the dispatcher, spec and compiled validators with everything else.
 */
const HOT_PATH = /^\/v1\/(?:chat\/completions|models)(?:[/?]|$)/;

export async function createApp(services: Services): Promise<App> {
  const api = await createApi(loadSpec(), handlers, services);
  const dispatch = createDispatcher(api, services);

  const controlPlane = express();
  controlPlane.disable('x-powered-by');
  controlPlane.disable('etag');
  // The web console: static files, a client of the API like any other (docs/console.md).
  controlPlane.use('/console', consoleRouter(path.join(projectRoot(), 'web', 'dist')));
  controlPlane.use((req, res) => void dispatch(req, res));

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (HOT_PATH.test(req.url ?? '')) void dispatch(req, res);
    else controlPlane(req, res);
  };
  return { listener };
}
