/**
 * What an MCP client sends back on a later POST of its session, for a request another POST holds:
 * its answers to server-to-client requests gw relayed (sampling, elicitation, roots) and its
 * cancellations of requests still running. The POST that carries them may land on any instance,
 * so they travel over the invalidation bus (Redis pub/sub across instances, direct in one process)
 * to the instance where the request waits.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { InvalidationBus } from '../../core/invalidation.js';

const TOPIC = 'mcp.client-relay';

export interface ClientAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

type RequestId = string | number;
const keyOf = (sessionId: string, id: RequestId) => `${sessionId}\u0000${typeof id}:${String(id)}`;

export class McpClientRelay {
  private readonly waiting = new Map<string, (answer: ClientAnswer) => void>();
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly bus: InvalidationBus) {
    bus.subscribe(TOPIC, (text) => this.deliver(JSON.parse(text) as { sessionId: string; message: JSONRPCMessage }));
  }

  /** Sends a client's answer or cancellation to the instance that waits for it. */
  async route(sessionId: string, message: JSONRPCMessage): Promise<void> {
    await this.bus.publish(TOPIC, JSON.stringify({ sessionId, message }));
  }

  private deliver({ sessionId, message }: { sessionId: string; message: JSONRPCMessage }): void {
    if ('method' in message) {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (message.method === 'notifications/cancelled' && requestId !== undefined) this.running.get(keyOf(sessionId, requestId))?.abort(new Error('Cancelled by the client'));
      return;
    }
    if ('id' in message && message.id !== undefined) this.waiting.get(keyOf(sessionId, message.id))?.(message as ClientAnswer);
  }

  /** The client's answer to request `id` gw sent it; rejects when `signal` aborts first. */
  answerTo(sessionId: string, id: RequestId, signal: AbortSignal): Promise<ClientAnswer> {
    const key = keyOf(sessionId, id);
    return new Promise((resolve, reject) => {
      const stop = () => {
        this.waiting.delete(key);
        reject(signal.reason instanceof Error ? signal.reason : new Error('The request was abandoned'));
      };
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
      this.waiting.set(key, (answer) => {
        this.waiting.delete(key);
        signal.removeEventListener('abort', stop);
        resolve(answer);
      });
    });
  }

  /** A signal a client's notifications/cancelled for `requestId` aborts, until `done` is called. */
  track(sessionId: string, requestId: RequestId): { signal: AbortSignal; done(): void } {
    const key = keyOf(sessionId, requestId);
    const controller = new AbortController();
    this.running.set(key, controller);
    return { signal: controller.signal, done: () => this.running.get(key) === controller && this.running.delete(key) };
  }
}
