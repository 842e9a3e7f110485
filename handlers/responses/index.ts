import { notImplemented } from '../not-implemented.js';

import type { Handler } from '../types.js';
// gw:handler-stub: written by `make generate`; answers 501 until implemented (`make check` fails while it remains).
export const createResponse: Handler = notImplemented('createResponse');

// gw:handler-stub: written by `make generate`; answers 501 until implemented (`make check` fails while it remains).
export const getResponse: Handler = notImplemented('getResponse');

// gw:handler-stub: written by `make generate`; answers 501 until implemented (`make check` fails while it remains).
export const deleteResponse: Handler = notImplemented('deleteResponse');

// gw:handler-stub: written by `make generate`; answers 501 until implemented (`make check` fails while it remains).
export const listResponseInputItems: Handler = notImplemented('listResponseInputItems');
