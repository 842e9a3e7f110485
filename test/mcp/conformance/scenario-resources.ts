/**
 * The resources, the resource template and the subscriptions the conformance suite's server
 * scenarios read (URIs as the suite names them).
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ONE_PIXEL_PNG } from './scenario-media.js';
import type { ScenarioSession } from './scenario-session.js';

export function registerScenarioResources(server: McpServer, session: ScenarioSession): void {
  server.registerResource('static-text', 'test://static-text', { description: 'A fixed text', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
  }));

  server.registerResource('static-binary', 'test://static-binary', { description: 'A fixed PNG', mimeType: 'image/png' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'image/png', blob: ONE_PIXEL_PNG }],
  }));

  server.registerResource('watched-resource', 'test://watched-resource', { description: 'The resource the subscription scenarios watch', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched.' }],
  }));

  // The template's {id} comes back in the content, which is what the suite checks.
  server.registerResource(
    'template-data',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { description: 'JSON data for any id', mimeType: 'application/json' },
    (uri, { id }) => ({
      contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }) }],
    }),
  );

  // McpServer has no subscription handlers of its own; the server declares `subscribe` (see scenario-server.ts).
  server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
    session.subscriptions.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    session.subscriptions.delete(request.params.uri);
    return {};
  });
}
