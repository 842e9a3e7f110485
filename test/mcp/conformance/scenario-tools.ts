/**
 * The tools the conformance suite's server scenarios call (names and arguments are the ones the
 * suite asks for). Everything a tool sends while it runs (log messages, progress, sampling and
 * elicitation requests) goes through the call's `extra`, so it travels on the POST stream of that
 * call: a client (or a gateway) gets it with the call, without depending on the session's GET stream.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  type ElicitRequest,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ONE_PIXEL_PNG, silentWav } from './scenario-media.js';
import type { ScenarioSession } from './scenario-session.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const SEVERITY: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends a log message on the call's stream unless the level the client set filters it out. */
async function log(session: ScenarioSession, extra: Extra, level: LoggingLevel, data: string): Promise<void> {
  if (session.logLevel && SEVERITY.indexOf(level) < SEVERITY.indexOf(session.logLevel)) return;
  await extra.sendNotification({ method: 'notifications/message', params: { level, logger: 'scenario-server', data } });
}

/** Asks the client to fill a form, on the call's stream; refuses when the client cannot. */
async function elicit(server: McpServer, extra: Extra, params: ElicitRequest['params']) {
  if (!server.server.getClientCapabilities()?.elicitation) throw new Error('the client did not declare the elicitation capability');
  return extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema);
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

export function registerScenarioTools(server: McpServer, session: ScenarioSession): void {
  server.registerTool('test_simple_text', { description: 'Answers with one text block' }, () => text('This is a simple text response for testing.'));

  server.registerTool('test_image_content', { description: 'Answers with a PNG image' }, () => ({
    content: [{ type: 'image', data: ONE_PIXEL_PNG, mimeType: 'image/png' }],
  }));

  server.registerTool('test_audio_content', { description: 'Answers with a short silent WAV' }, () => ({
    content: [{ type: 'audio', data: silentWav(), mimeType: 'audio/wav' }],
  }));

  server.registerTool('test_embedded_resource', { description: 'Answers with an embedded text resource' }, () => ({
    content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }],
  }));

  server.registerTool('test_multiple_content_types', { description: 'Answers with text, an image and an embedded resource' }, () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: ONE_PIXEL_PNG, mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
    ],
  }));

  // The pauses let the client see the messages arrive one by one while the call runs.
  server.registerTool('test_tool_with_logging', { description: 'Logs three info messages while it runs' }, async (extra) => {
    await log(session, extra, 'info', 'Tool execution started');
    await pause(50);
    await log(session, extra, 'info', 'Tool processing data');
    await pause(50);
    await log(session, extra, 'info', 'Tool execution completed');
    return text('Logged three messages.');
  });

  // McpServer answers a tool that throws with a result marked isError, carrying the message.
  server.registerTool('test_error_handling', { description: 'Always fails' }, () => {
    throw new Error('This tool intentionally returns an error for testing');
  });

  server.registerTool('test_tool_with_progress', { description: 'Reports progress 0, 50 and 100 of 100' }, async (extra) => {
    const progressToken = extra._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (progress > 0) await pause(50);
      if (progressToken !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total: 100 } });
    }
    return text('Progress reported.');
  });

  server.registerTool(
    'test_sampling',
    { description: 'Asks the client for an LLM completion of the prompt', inputSchema: { prompt: z.string().describe('What to ask the LLM') } },
    async ({ prompt }, extra) => {
      if (!server.server.getClientCapabilities()?.sampling) throw new Error('the client did not declare the sampling capability');
      const answer = await extra.sendRequest(
        { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 } },
        CreateMessageResultSchema,
      );
      const reply = answer.content.type === 'text' ? answer.content.text : `(${answer.content.type})`;
      return text(`LLM response: ${reply}`);
    },
  );

  server.registerTool(
    'test_elicitation',
    { description: 'Asks the user for a username and an email', inputSchema: { message: z.string().describe('What to show the user') } },
    async ({ message }, extra) => {
      const answer = await elicit(server, extra, {
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: 'The user name' },
            email: { type: 'string', description: 'The email address' },
          },
          required: ['username', 'email'],
        },
      });
      return text(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
    },
  );

  // SEP-1034: every primitive field of an elicitation form can carry a default.
  server.registerTool('test_elicitation_sep1034_defaults', { description: 'Asks for a form whose fields all have defaults' }, async (extra) => {
    const answer = await elicit(server, extra, {
      message: 'Check the prefilled profile',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'Name', default: 'John Doe' },
          age: { type: 'integer', description: 'Age', default: 30 },
          score: { type: 'number', description: 'Score', default: 95.5 },
          status: { type: 'string', description: 'Status', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', description: 'Verified', default: true },
        },
      },
    });
    return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
  });

  // SEP-1330: the five shapes of a choice, single and multiple, with and without titles.
  server.registerTool('test_elicitation_sep1330_enums', { description: 'Asks for a form with every kind of choice field' }, async (extra) => {
    const answer = await elicit(server, extra, {
      message: 'Pick your options',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          titledSingle: {
            type: 'string',
            oneOf: [
              { const: 'value1', title: 'First Option' },
              { const: 'value2', title: 'Second Option' },
              { const: 'value3', title: 'Third Option' },
            ],
          },
          legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
          untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
          titledMulti: {
            type: 'array',
            items: {
              anyOf: [
                { const: 'value1', title: 'First Choice' },
                { const: 'value2', title: 'Second Choice' },
                { const: 'value3', title: 'Third Choice' },
              ],
            },
          },
        },
      },
    });
    return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
  });
}
