/** The prompts (and the argument completion) the conformance suite's server scenarios ask for. */
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ONE_PIXEL_PNG } from './scenario-media.js';

/** Suggestions for `arg1`, of which completion offers those starting with what was typed. */
const ARG1_SUGGESTIONS = ['test', 'testing', 'tested', 'paris', 'park'];

export function registerScenarioPrompts(server: McpServer): void {
  server.registerPrompt('test_simple_prompt', { description: 'A prompt without arguments' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));

  // A completable argument is also what makes McpServer declare `completions` and answer completion/complete.
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt that repeats its two arguments',
      argsSchema: {
        arg1: completable(z.string().describe('First argument'), (typed) => ARG1_SUGGESTIONS.filter((word) => word.startsWith(typed))),
        arg2: z.string().describe('Second argument'),
      },
    },
    ({ arg1, arg2 }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
    }),
  );

  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    { description: 'A prompt that embeds the resource it is given', argsSchema: { resourceUri: z.string().describe('URI of the resource to embed') } },
    ({ resourceUri }) => ({
      messages: [
        { role: 'user', content: { type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  );

  server.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: ONE_PIXEL_PNG, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }));
}
