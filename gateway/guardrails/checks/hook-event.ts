import type { CheckSubject } from '../check-types.js';

/** What webhook and log checks POST: the request, the answer (output phase), metadata and where in the call this runs. */
export interface HookEvent {
  /** null on a pass-through call: its body is streamed to the provider, not read. */
  request: CheckSubject['request'] | null;
  response: CheckSubject['completion'] | null;
  metadata: Record<string, string>;
  phase: 'input' | 'output';
  /** The hook names gateway users' webhooks already switch on. */
  eventType: 'beforeRequestHook' | 'afterRequestHook';
  requestType: string;
  /** Pass-through (/v1/*) calls only, and only when the check opted in. */
  method?: string;
  path?: string;
  contentType?: string | null;
}

export function hookEvent(subject: CheckSubject, includeProxy: boolean): HookEvent {
  const event: HookEvent = {
    request: subject.requestType === 'proxy' ? null : subject.request,
    response: subject.completion ?? null,
    metadata: subject.metadata,
    phase: subject.phase,
    eventType: subject.phase === 'input' ? 'beforeRequestHook' : 'afterRequestHook',
    requestType: subject.requestType,
  };
  if (includeProxy && subject.proxy) {
    event.method = subject.proxy.method;
    event.path = subject.proxy.path;
    event.contentType = subject.proxy.contentType ?? null;
  }
  return event;
}
