/**
 * The web console at /console: the static files `make build` puts in web/dist. Hashed assets
 * (web/dist/assets) are cached for a year as immutable; index.html, which names them, is never
 * cached, so a new build shows at the next load. Every path that is not a file is a client route
 * and gets index.html. The Content-Security-Policy allows this origin only: no CDN, no inline script.
 * index.html also carries a fresh nonce for style elements (in its CSP and a <meta name=gw-style-nonce>):
 * the JSON editor (CodeMirror) writes its styles in <style> elements stamped with it; scripts gain nothing.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import express from 'express';
import { ApiError, errorBody } from '../core/errors.js';
import { sendJson, sendText } from '../core/respond.js';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The CSP of index.html: CONSOLE_CSP with style elements carrying `nonce` allowed too. */
export function consoleDocumentCsp(nonce: string): string {
  return CONSOLE_CSP.replace("style-src 'self'", `style-src 'self' 'nonce-${nonce}'`);
}

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';

function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
}

function fail(res: ServerResponse, error: ApiError): void {
  setSecurityHeaders(res);
  sendJson(res, error.status, errorBody(error), { 'cache-control': 'no-store', ...error.headers });
}

/** The express router that serves the console built in `distDir` (mounted at /console). */
export function consoleRouter(distDir: string): express.Router {
  const router = express.Router();
  const indexFile = path.join(distDir, 'index.html');

  router.use((req, res, next) => {
    if (!existsSync(indexFile)) {
      fail(res, new ApiError(503, 'console_not_built', 'The console is not built: run `make build` (it builds web/ into web/dist), then start gw again', 'api_error'));
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      fail(res, new ApiError(405, 'method_not_allowed', `The console answers GET and HEAD only, not ${req.method}`, 'invalid_request_error', { headers: { allow: 'GET, HEAD' } }));
      return;
    }
    setSecurityHeaders(res);
    next();
  });

  router.use(
    '/assets',
    express.static(path.join(distDir, 'assets'), { index: false, redirect: false, fallthrough: false, immutable: true, maxAge: '365d', setHeaders: (res) => res.setHeader('cache-control', IMMUTABLE) }),
  );
  router.use(express.static(distDir, { index: false, redirect: false, setHeaders: (res) => res.setHeader('cache-control', 'no-cache') }));
  router.use((_req: IncomingMessage, res: ServerResponse) => {
    // Node sends no body for HEAD, with the GET's content-length.
    const nonce = randomBytes(16).toString('base64');
    const html = readFileSync(indexFile, 'utf8').replace('<head>', `<head><meta name="gw-style-nonce" content="${nonce}">`);
    sendText(res, 200, html, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'content-security-policy': consoleDocumentCsp(nonce) });
  });
  // A missing asset answers 404 in the error body, never index.html in place of a script.
  router.use((error: { status?: number; statusCode?: number }, _req: express.Request, res: express.Response, next: express.NextFunction) => {
    const status = error.status ?? error.statusCode;
    if (status === 404) fail(res, new ApiError(404, 'not_found', 'No such console file', 'not_found_error'));
    else next(error);
  });
  return router;
}
