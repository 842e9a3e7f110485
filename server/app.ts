import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express from 'express';
import type { Document } from 'openapi-backend';
import { handlers } from '../handlers/index.js';
import { createApi } from './api.js';
import { createDispatcher } from './http.js';
import { projectRoot } from './project-root.js';
import type { Services } from './services.js';

export interface App {
  /** The request listener to hand to http.createServer (or to supertest). */
  listener: RequestListener;
}

let cachedSpec: Document | undefined;

/** The bundled spec from generated/; `make generate` writes it. */
export function loadSpec(): Document {
  cachedSpec ??= JSON.parse(readFileSync(path.join(projectRoot(), 'generated/openapi.json'), 'utf8')) as Document;
  return structuredClone(cachedSpec);
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
  controlPlane.use((req, res) => void dispatch(req, res));

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    if (HOT_PATH.test(req.url ?? '')) void dispatch(req, res);
    else controlPlane(req, res);
  };
  return { listener };
}
