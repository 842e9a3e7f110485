/** What the scenario server remembers about one MCP session. */
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';

export interface ScenarioSession {
  /** Set by `logging/setLevel`; messages below it are not sent. */
  logLevel?: LoggingLevel;
  /** URIs the client subscribed to (`resources/subscribe`). */
  subscriptions: Set<string>;
}
