/** The fake Gemini upstream is held to the real format: the official @google/genai client reads it. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GoogleGenAI } from '@google/genai';
import { startFakeGemini, type FakeGeminiReply } from '../helpers/fake-gemini.js';
import type { RecordingServer } from '../helpers/recording-server.js';

describe('fake Gemini upstream read by @google/genai', () => {
  let fake: RecordingServer;
  let replies: FakeGeminiReply[] = [];
  let client: GoogleGenAI;

  before(async () => {
    fake = await startFakeGemini(() => replies.shift() ?? { kind: 'error', status: 500, statusText: 'INTERNAL', message: 'no reply scripted' });
    client = new GoogleGenAI({ apiKey: 'gemini-test-key', httpOptions: { baseUrl: fake.url } });
  });
  after(() => fake.close());

  it('answers generateContent with a response the client parses', async () => {
    replies = [{ kind: 'response', candidates: [{ parts: [{ text: 'Bonjour' }], finishReason: 'STOP' }], usage: { promptTokenCount: 4, candidatesTokenCount: 2, totalTokenCount: 6 } }];
    const response = await client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hi' });
    assert.equal(response.text, 'Bonjour');
    assert.equal(response.candidates?.[0]?.finishReason, 'STOP');
    assert.equal(response.usageMetadata?.totalTokenCount, 6);
    const received = fake.received.at(-1)!;
    assert.equal(received.path, '/v1beta/models/gemini-2.5-flash:generateContent');
    assert.equal(received.headers['x-goog-api-key'], 'gemini-test-key');
  });

  it('answers function calls the client exposes as functionCalls', async () => {
    replies = [{ kind: 'response', candidates: [{ parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }], finishReason: 'STOP' }] }];
    const response = await client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Weather?' });
    assert.deepEqual(response.functionCalls, [{ name: 'get_weather', args: { city: 'Paris' } }]);
  });

  it('streams SSE events the client reads one by one', async () => {
    replies = [{ kind: 'response', candidates: [{ parts: [{ text: 'one two three' }], finishReason: 'STOP' }], usage: { promptTokenCount: 4, candidatesTokenCount: 3, totalTokenCount: 7 } }];
    const pieces: string[] = [];
    let finishReason: string | undefined;
    for await (const chunk of await client.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Count' })) {
      pieces.push(chunk.text ?? '');
      finishReason = chunk.candidates?.[0]?.finishReason ?? finishReason;
    }
    assert.deepEqual(pieces, ['one', ' two', ' three']);
    assert.equal(finishReason, 'STOP');
    assert.match(fake.received.at(-1)!.path, /:streamGenerateContent\?alt=sse$/);
  });

  it('answers errors the client raises with their status', async () => {
    replies = [{ kind: 'error', status: 400, statusText: 'INVALID_ARGUMENT', message: 'Bad field' }];
    await assert.rejects(client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hi' }), (error: unknown) => {
      assert.equal((error as { status?: number }).status, 400);
      assert.match(String((error as Error).message), /Bad field/);
      return true;
    });
  });

  it('ends a stream with an error event the client raises', async () => {
    replies = [{ kind: 'response', candidates: [{ parts: [{ text: 'one two three' }], finishReason: 'STOP' }], errorAfterEvents: 1 }];
    await assert.rejects(async () => {
      for await (const _chunk of await client.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Count' })) {
        // Read until the error event.
      }
    });
  });

  it('lists models in the client shape', async () => {
    const pager = await client.models.list();
    assert.equal(pager.page[0]?.name, 'models/gemini-2.5-flash');
  });
});
