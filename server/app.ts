import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import path from 'node:path';
import express from 'express';
import { handlers } from '../handlers/index.js';
import { createApi } from './api.js';
import { consoleRouter } from './console.js';
import { createDispatcher } from './http.js';
import { createResponsesSockets, type ResponsesSockets } from './responses-socket/responses-socket.js';
import type { Services } from '../core/services.js';
import { projectRoot } from '../core/project-root.js';
import { loadSpec } from '../core/spec-document.js';

export { loadSpec };

export interface App {
  /** The request listener to hand to http.createServer (or to supertest). */
  listener: RequestListener;
  /** The Responses API's WebSocket mode: hand it the server's `upgrade` events; drained at shutdown. */
  sockets: ResponsesSockets;
}

/**
 * Express serves the web console's files only; every API call (gateway and control plane) goes
 * straight to the dispatcher: express's middleware stack costs more than half of Node's throughput
 * ceiling. Matched as express mounts `/console` (any case).
 */
const CONSOLE_PATH = /^\/console(?:[/?]|$)/i;
/**
 * The bare root, with or without a query: a person who opens gw's address lands in the console.
 * GET only: HEAD / stays the spec's probe (200, for Claude Code).
 */
const ROOT_PATH = /^\/(?:\?|$)/;

function redirectToConsole(res: ServerResponse): void {
  res.writeHead(302, { location: '/console/', 'cache-control': 'no-cache', 'content-length': '0' });
  res.end();
}

export async function createApp(services: Services): Promise<App> {
  const api = await createApi(loadSpec(), handlers, services);
  const dispatch = createDispatcher(api, services);

  // The web console: static files, a client of the API like any other (docs/console.md).
  const consoleApp = express();
  consoleApp.disable('x-powered-by');
  consoleApp.disable('etag');
  consoleApp.use('/console', consoleRouter(path.join(projectRoot(), 'web', 'dist')));
  consoleApp.use((req, res) => void dispatch(req, res));

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    if (CONSOLE_PATH.test(url)) consoleApp(req, res);
    else if (req.method === 'GET' && ROOT_PATH.test(url)) redirectToConsole(res);
    else void dispatch(req, res);
  };
  return { listener, sockets: createResponsesSockets(api, services) };
}
