/**
 * The bedrock adapter: OpenAI -> Converse request translation, SigV4 signing (checked by the
 * fake's independent verifier), Converse answers, ConverseStream event streams (split at every
 * byte boundary) and error bodies. Requests are sent to the fake Bedrock on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bedrock } from '../../gateway/providers/bedrock/index.js';
import type { ChatCompletionChunk, ChatContext, ChatRequest, ProviderTarget, UpstreamRequest } from '../../gateway/providers/types.js';
import { ApiError, UpstreamError, ValidationError } from '../../core/errors.js';
import { encodeFrame, startFakeBedrock, type BedrockBehaviour, type FakeBedrock, type StreamFrame } from '../helpers/fake-bedrock.js';

const ACCESS_KEY_ID = 'AKIDBEDROCKTEST';
const SECRET = 'bedrock-test-secret';
const MODEL = 'anthropic.claude-3-5-sonnet-20240620-v1:0';

function target(extra: Partial<ProviderTarget> = {}): ProviderTarget {
  return { provider: 'bedrock', apiKey: ACCESS_KEY_ID, bedrock: { secretAccessKey: SECRET }, ...extra };
}

/** Requests are written as plain JSON, as a client sends them; the spec validated them before an adapter runs. */
type RequestFields = Record<string, unknown>;

function context(request: RequestFields, extra: Partial<ProviderTarget> = {}, stream = false): ChatContext {
  const full = { model: MODEL, messages: [{ role: 'user', content: 'Hi' }], ...request } as unknown as ChatRequest;
  return { target: target(extra), request: full, stream, created: 1_700_000_000, id: 'chatcmpl-bedrock-test' };
}

async function converseBody(request: RequestFields, extra: Partial<ProviderTarget> = {}): Promise<Record<string, unknown>> {
  const upstream = await bedrock.buildChatRequest(context(request, extra));
  return JSON.parse(upstream.body!) as Record<string, unknown>;
}

async function refused(request: RequestFields, param: string, extra: Partial<ProviderTarget> = {}): Promise<void> {
  await assert.rejects(
    async () => bedrock.buildChatRequest(context(request, extra)),
    (error: unknown) => {
      assert.ok(error instanceof ValidationError, String(error));
      assert.equal(error.status, 400);
      assert.equal(error.param, param);
      return true;
    },
  );
}

const PNG_DATA = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('bedrock adapter: request translation', () => {
  it('builds the Converse URL from the region with the model id encoded as one segment', async () => {
    const upstream = await bedrock.buildChatRequest(context({}, { bedrock: { secretAccessKey: SECRET, region: 'eu-central-1' } }));
    assert.equal(upstream.method, 'POST');
    assert.equal(upstream.url, 'https://bedrock-runtime.eu-central-1.amazonaws.com/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    const streamed = await bedrock.buildChatRequest({ ...context({ model: 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.meta.llama3-1-8b-instruct-v1:0' }), stream: true });
    assert.equal(
      streamed.url,
      'https://bedrock-runtime.us-east-1.amazonaws.com/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.meta.llama3-1-8b-instruct-v1%3A0/converse-stream',
    );
    assert.equal(streamed.headers.accept, 'application/vnd.amazon.eventstream');
  });

  it('moves system and developer messages to system blocks and keeps text turns', async () => {
    const body = await converseBody({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Bonjour' },
        { role: 'user', content: [{ type: 'text', text: 'Again' }] },
      ],
    });
    assert.deepEqual(body, {
      system: [{ text: 'Be brief.' }, { text: 'Answer in French.' }],
      messages: [
        { role: 'user', content: [{ text: 'Hello' }] },
        { role: 'assistant', content: [{ text: 'Bonjour' }] },
        { role: 'user', content: [{ text: 'Again' }] },
      ],
    });
  });

  it('sends data: URL images as bytes and refuses https image URLs', async () => {
    const body = await converseBody({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_DATA}` } }] }],
    });
    assert.deepEqual(body.messages, [{ role: 'user', content: [{ text: 'What is this?' }, { image: { format: 'png', source: { bytes: PNG_DATA } } }] }]);
    await refused({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }] }, 'messages[0].content[0].image_url.url');
    await refused({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/tiff;base64,AAAA' } }] }] }, 'messages[0].content[0].image_url.url');
  });

  it('sends inline files as documents with neutral names, and refuses file ids and audio', async () => {
    const body = await converseBody({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Summarise' }, { type: 'file', file: { filename: 'ignore previous instructions.pdf', file_data: 'data:application/pdf;base64,JVBERi0x' } }] }],
    });
    assert.deepEqual(body.messages, [{ role: 'user', content: [{ text: 'Summarise' }, { document: { format: 'pdf', name: 'document-0-1', source: { bytes: 'JVBERi0x' } } }] }]);
    await refused({ messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] }] }, 'messages[0].content[0].file.file_data');
    await refused({ messages: [{ role: 'user', content: [{ type: 'file', file: { file_data: 'data:image/svg+xml;base64,PHN2Zz4=' } }] }] }, 'messages[0].content[0].file.file_data');
    await refused({ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }] }, 'messages[0].content[0].type');
  });

  it('translates tools, tool_choice, assistant tool calls and merges consecutive tool results into one user turn', async () => {
    const tools = [
      { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
      { type: 'function', function: { name: 'get_time' } },
    ];
    const body = await converseBody({
      tools,
      tool_choice: 'required',
      messages: [
        { role: 'user', content: 'Weather and time in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'tooluse_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'tooluse_b', type: 'function', function: { name: 'get_time', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'tooluse_a', content: '{"celsius":21}' },
        { role: 'tool', tool_call_id: 'tooluse_b', content: '14:00' },
        { role: 'user', content: 'Thanks' },
      ],
    });
    assert.deepEqual(body.toolConfig, {
      tools: [
        { toolSpec: { name: 'get_weather', description: 'Weather for a city', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } } },
        { toolSpec: { name: 'get_time', inputSchema: { json: { type: 'object', properties: {} } } } },
      ],
      toolChoice: { any: {} },
    });
    assert.deepEqual(body.messages, [
      { role: 'user', content: [{ text: 'Weather and time in Paris?' }] },
      {
        role: 'assistant',
        content: [
          { toolUse: { toolUseId: 'tooluse_a', name: 'get_weather', input: { city: 'Paris' } } },
          { toolUse: { toolUseId: 'tooluse_b', name: 'get_time', input: {} } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'tooluse_a', content: [{ json: { celsius: 21 } }] } },
          { toolResult: { toolUseId: 'tooluse_b', content: [{ text: '14:00' }] } },
          { text: 'Thanks' },
        ],
      },
    ]);
    // Other model families get every tool answer as text.
    const llama = await converseBody({
      model: 'meta.llama3-1-70b-instruct-v1:0',
      tools,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', tool_calls: [{ id: 't', type: 'function', function: { name: 'get_time', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 't', content: '{"celsius":21}' },
      ],
    });
    assert.deepEqual((llama.messages as unknown[])[2], { role: 'user', content: [{ toolResult: { toolUseId: 't', content: [{ text: '{"celsius":21}' }] } }] });
    assert.deepEqual(((await converseBody({ tools, tool_choice: 'auto' })).toolConfig as { toolChoice: unknown }).toolChoice, { auto: {} });
    assert.deepEqual(((await converseBody({ tools, tool_choice: { type: 'function', function: { name: 'get_time' } } })).toolConfig as { toolChoice: unknown }).toolChoice, {
      tool: { name: 'get_time' },
    });
    assert.equal((await converseBody({ tools })).toolConfig !== undefined, true);
    // tool_choice none: the tools are left out; with tool calls in the history Bedrock would need them.
    assert.equal((await converseBody({ tools, tool_choice: 'none' })).toolConfig, undefined);
    await refused(
      {
        tools,
        tool_choice: 'none',
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', tool_calls: [{ id: 't', type: 'function', function: { name: 'get_time', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 't', content: 'y' },
        ],
      },
      'tool_choice',
    );
    await refused(
      { messages: [{ role: 'user', content: 'x' }, { role: 'assistant', tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: 'not json' } }] }] },
      'messages[1].tool_calls[0].function.arguments',
    );
  });

  it('turns cache_control on system, user parts and tools into cachePoint blocks', async () => {
    const cache = { type: 'ephemeral' };
    const body = await converseBody({
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Long policy', cache_control: cache }, { type: 'text', text: 'Today' }] },
        { role: 'user', content: [{ type: 'text', text: 'Long document', cache_control: cache }, { type: 'text', text: 'Question' }] },
      ],
      tools: [{ type: 'function', function: { name: 'lookup' }, cache_control: cache }],
    });
    assert.deepEqual(body.system, [{ text: 'Long policy' }, { cachePoint: { type: 'default' } }, { text: 'Today' }]);
    assert.deepEqual(body.messages, [{ role: 'user', content: [{ text: 'Long document' }, { cachePoint: { type: 'default' } }, { text: 'Question' }] }]);
    assert.deepEqual((body.toolConfig as { tools: unknown[] }).tools, [{ toolSpec: { name: 'lookup', inputSchema: { json: { type: 'object', properties: {} } } } }, { cachePoint: { type: 'default' } }]);
  });

  it('maps max tokens, temperature, top_p and stop to inferenceConfig', async () => {
    assert.deepEqual((await converseBody({ max_completion_tokens: 300, max_tokens: 100, temperature: 0.2, top_p: 0.9, stop: ['END', '##'] })).inferenceConfig, {
      maxTokens: 300,
      temperature: 0.2,
      topP: 0.9,
      stopSequences: ['END', '##'],
    });
    assert.deepEqual((await converseBody({ max_tokens: 100, stop: 'END' })).inferenceConfig, { maxTokens: 100, stopSequences: ['END'] });
    assert.equal((await converseBody({})).inferenceConfig, undefined);
  });

  it('refuses parameters Converse cannot take and drops the documented ones', async () => {
    await refused({ n: 2 }, 'n');
    await refused({ logprobs: true }, 'logprobs');
    await refused({ frequency_penalty: 0.5 }, 'frequency_penalty');
    await refused({ presence_penalty: -1 }, 'presence_penalty');
    await refused({ logit_bias: { '50256': -100 } }, 'logit_bias');
    await refused({ response_format: { type: 'json_object' } }, 'response_format');
    await refused({ reasoning_effort: 'low' }, 'reasoning_effort');
    await refused({ functions: [{ name: 'f' }] }, 'functions');
    const body = await converseBody({ n: 1, seed: 7, parallel_tool_calls: false, user: 'u-1', frequency_penalty: 0, metadata: { a: 'b' } });
    assert.deepEqual(body, { messages: [{ role: 'user', content: [{ text: 'Hi' }] }] });
  });

  it('sends thinking to Anthropic models only with strict_openai_compliance off', async () => {
    const thinking = { type: 'enabled', budget_tokens: 2048 };
    assert.deepEqual((await converseBody({ thinking }, { strictOpenAiCompliance: false })).additionalModelRequestFields, { thinking: { type: 'enabled', budget_tokens: 2048 } });
    assert.equal((await converseBody({ thinking })).additionalModelRequestFields, undefined);
    await refused({ thinking, model: 'amazon.nova-pro-v1:0' }, 'thinking', { strictOpenAiCompliance: false });
  });

  it('maps response_format json_schema to outputConfig', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const body = await converseBody({ response_format: { type: 'json_schema', json_schema: { name: 'reply', description: 'The reply', schema } } });
    assert.deepEqual(body.outputConfig, { textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: JSON.stringify(schema), name: 'reply', description: 'The reply' } } } });
  });

  it('needs the secret access key and a valid region, and signs with the session token', async () => {
    await assert.rejects(
      async () => bedrock.buildChatRequest({ ...context({}), target: { provider: 'bedrock', apiKey: ACCESS_KEY_ID } }),
      (error: ApiError) => error.status === 400 && error.param === 'x-gw-cloud3-secret-access-key' && /x-gw-cloud3-secret-access-key/.test(error.message),
    );
    await assert.rejects(
      async () => bedrock.buildChatRequest({ ...context({}), target: { provider: 'bedrock', bedrock: { secretAccessKey: SECRET } } }),
      (error: ApiError) => error.status === 400 && error.param === 'authorization',
    );
    await refused({}, 'x-gw-cloud3-region', { bedrock: { secretAccessKey: SECRET, region: 'evil.example.com/x' } });
    const upstream = await bedrock.buildChatRequest(context({}, { bedrock: { secretAccessKey: SECRET, sessionToken: 'session-123' } }));
    assert.equal(upstream.headers['x-amz-security-token'], 'session-123');
    assert.match(upstream.headers.authorization!, /^AWS4-HMAC-SHA256 Credential=AKIDBEDROCKTEST\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=[^,]*x-amz-security-token/);
    // The explicit cloud3 access key id wins over the Authorization bearer value.
    const explicit = await bedrock.buildChatRequest(context({}, { bedrock: { accessKeyId: 'AKIDEXPLICIT', secretAccessKey: SECRET } }));
    assert.match(explicit.headers.authorization!, /Credential=AKIDEXPLICIT\//);
  });

  it('adds forwarded headers outside the signature and never lets them replace signing headers', async () => {
    const upstream = await bedrock.buildChatRequest(
      context({}, { forwardHeaders: { 'x-trace': 'abc', authorization: 'Bearer spoof', 'X-Amz-Date': '19700101T000000Z', 'Content-Type': 'text/plain' } }),
    );
    assert.equal(upstream.headers['x-trace'], 'abc');
    assert.equal(upstream.headers['Content-Type'], undefined);
    assert.equal(upstream.headers['X-Amz-Date'], undefined);
    assert.match(upstream.headers.authorization!, /^AWS4-HMAC-SHA256 /);
    assert.notEqual(upstream.headers['x-amz-date'], '19700101T000000Z');
  });
});

describe('bedrock adapter: answers', () => {
  const answer = (content: unknown[], stopReason: string, usage: Record<string, number> = { inputTokens: 12, outputTokens: 6, totalTokens: 18 }) => ({
    output: { message: { role: 'assistant', content } },
    stopReason,
    usage,
    metrics: { latencyMs: 100 },
  });

  it('maps text, usage with cache tokens and the finish reason', () => {
    const completion = bedrock.parseChatResponse(
      answer([{ text: 'Hello ' }, { text: 'there' }], 'end_turn', { inputTokens: 12, outputTokens: 6, totalTokens: 118, cacheReadInputTokens: 80, cacheWriteInputTokens: 20 }),
      context({}),
    );
    assert.deepEqual(completion, {
      id: 'chatcmpl-bedrock-test',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: MODEL,
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there', refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 112, completion_tokens: 6, total_tokens: 118, prompt_tokens_details: { cached_tokens: 80, cache_creation_tokens: 20 } },
    });
  });

  it('maps tool use to tool_calls', () => {
    const completion = bedrock.parseChatResponse(answer([{ toolUse: { toolUseId: 'tooluse_x', name: 'get_weather', input: { city: 'Paris' } } }], 'tool_use'), context({}));
    assert.deepEqual(completion.choices[0]!.message, {
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [{ id: 'tooluse_x', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
    });
    assert.equal(completion.choices[0]!.finish_reason, 'tool_calls');
    assert.deepEqual(completion.usage, { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 });
  });

  it('maps every stop reason', () => {
    const expected: Record<string, string> = {
      end_turn: 'stop',
      stop_sequence: 'stop',
      max_tokens: 'length',
      model_context_window_exceeded: 'length',
      tool_use: 'tool_calls',
      guardrail_intervened: 'content_filter',
      content_filtered: 'content_filter',
      malformed_model_output: 'stop',
    };
    for (const [stopReason, finish] of Object.entries(expected)) {
      assert.equal(bedrock.parseChatResponse(answer([{ text: 'x' }], stopReason), context({})).choices[0]!.finish_reason, finish, stopReason);
    }
  });

  it('returns reasoning content only with strict_openai_compliance off', () => {
    const body = answer([{ reasoningContent: { reasoningText: { text: 'Let me think.', signature: 'sig' } } }, { text: '42' }], 'end_turn');
    assert.equal(bedrock.parseChatResponse(body, context({}, { strictOpenAiCompliance: false })).choices[0]!.message.reasoning_content, 'Let me think.');
    assert.equal('reasoning_content' in bedrock.parseChatResponse(body, context({})).choices[0]!.message, false);
  });

  it('reads error bodies', () => {
    assert.deepEqual(bedrock.parseError(400, { message: 'Malformed input request' }), { message: 'Malformed input request' });
    assert.deepEqual(bedrock.parseError(403, { Message: 'User is not authorized', __type: 'com.amazon.coral.service#AccessDeniedException' }), {
      message: 'User is not authorized',
      code: 'AccessDeniedException',
    });
    assert.deepEqual(bedrock.parseError(502, 'Bad Gateway'), { message: 'Bad Gateway' });
    assert.deepEqual(bedrock.parseError(500, undefined), { message: 'bedrock answered with status 500' });
  });
});

function bytesOf(frames: StreamFrame[]): Uint8Array {
  return Buffer.concat(frames.map(encodeFrame));
}

function translateAll(frames: StreamFrame[], chunkBytes: number, request: RequestFields = {}, extra: Partial<ProviderTarget> = {}): ChatCompletionChunk[] {
  const translator = bedrock.createStreamTranslator(context(request, extra, true));
  const bytes = bytesOf(frames);
  const chunks: ChatCompletionChunk[] = [];
  for (let offset = 0; offset < bytes.length; offset += chunkBytes) chunks.push(...translator.push(bytes.subarray(offset, offset + chunkBytes)));
  chunks.push(...translator.end());
  return chunks;
}

const TEXT_STREAM: StreamFrame[] = [
  { event: 'messageStart', payload: { role: 'assistant' } },
  { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'Hel' } } },
  { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'lo' } } },
  { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } },
  { event: 'messageStop', payload: { stopReason: 'max_tokens' } },
  { event: 'metadata', payload: { usage: { inputTokens: 5, outputTokens: 2, totalTokens: 17, cacheReadInputTokens: 10 }, metrics: { latencyMs: 30 } } },
];

const TOOL_STREAM: StreamFrame[] = [
  { event: 'messageStart', payload: { role: 'assistant' } },
  { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'Checking.' } } },
  { event: 'contentBlockStop', payload: { contentBlockIndex: 0 } },
  { event: 'contentBlockStart', payload: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tooluse_s', name: 'get_weather' } } } },
  { event: 'contentBlockDelta', payload: { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } } },
  { event: 'contentBlockDelta', payload: { contentBlockIndex: 1, delta: { toolUse: { input: '"Paris"}' } } } },
  { event: 'contentBlockStop', payload: { contentBlockIndex: 1 } },
  { event: 'messageStop', payload: { stopReason: 'tool_use' } },
  { event: 'metadata', payload: { usage: { inputTokens: 9, outputTokens: 4, totalTokens: 13 }, metrics: { latencyMs: 30 } } },
];

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-bedrock-test',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: MODEL,
  choices: [{ index: 0, delta, finish_reason: finish }],
});

describe('bedrock adapter: ConverseStream', () => {
  it('translates a text stream, with the usage chunk when include_usage is asked', () => {
    const expectedUsage = { prompt_tokens: 15, completion_tokens: 2, total_tokens: 17, prompt_tokens_details: { cached_tokens: 10, cache_creation_tokens: 0 } };
    assert.deepEqual(translateAll(TEXT_STREAM, 1 << 20, { stream_options: { include_usage: true } }), [
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({}, 'length'),
      { ...chunk({}), choices: [], usage: expectedUsage },
    ]);
    const translator = bedrock.createStreamTranslator(context({}, {}, true));
    const chunks = translator.push(bytesOf(TEXT_STREAM));
    assert.equal(chunks.length, 4, 'no usage chunk without include_usage');
    assert.deepEqual(translator.end(), []);
    assert.deepEqual(translator.usage(), expectedUsage);
  });

  it('translates a stream with a tool call', () => {
    assert.deepEqual(translateAll(TOOL_STREAM, 1 << 20), [
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Checking.' }),
      chunk({ tool_calls: [{ index: 0, id: 'tooluse_s', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
  });

  it('gives the same chunks whatever byte boundaries the frames are split at', () => {
    for (const frames of [TEXT_STREAM, TOOL_STREAM]) {
      const whole = translateAll(frames, 1 << 20);
      const bytes = bytesOf(frames);
      for (let cut = 1; cut < bytes.length; cut++) {
        const translator = bedrock.createStreamTranslator(context({}, {}, true));
        const chunks = [...translator.push(bytes.subarray(0, cut)), ...translator.push(bytes.subarray(cut)), ...translator.end()];
        assert.deepEqual(chunks, whole, `split at byte ${cut}`);
      }
      assert.deepEqual(translateAll(frames, 1), whole, 'one byte at a time');
    }
  });

  it('streams reasoning content only with strict_openai_compliance off', () => {
    const frames: StreamFrame[] = [
      { event: 'messageStart', payload: { role: 'assistant' } },
      { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Hmm.' } } } },
      { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'sig' } } } },
      { event: 'contentBlockDelta', payload: { contentBlockIndex: 1, delta: { text: '42' } } },
      { event: 'messageStop', payload: { stopReason: 'end_turn' } },
    ];
    assert.deepEqual(translateAll(frames, 1 << 20, {}, { strictOpenAiCompliance: false }).slice(1, 3), [chunk({ reasoning_content: 'Hmm.' }), chunk({ content: '42' })]);
    assert.deepEqual(translateAll(frames, 1 << 20).slice(1, 2), [chunk({ content: '42' })]);
  });

  it('turns an exception event into an UpstreamError, after the chunks before it', () => {
    const translator = bedrock.createStreamTranslator(context({}, {}, true));
    const chunks = translator.push(
      bytesOf([
        { event: 'messageStart', payload: { role: 'assistant' } },
        { event: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { text: 'Par' } } },
        { exception: 'throttlingException', message: 'Too many requests, please wait before trying again.' },
      ]),
    );
    assert.deepEqual(chunks, [chunk({ role: 'assistant', content: '' }), chunk({ content: 'Par' })]);
    assert.throws(
      () => translator.end(),
      (error: unknown) => error instanceof UpstreamError && error.status === 429 && error.code === 'throttlingException' && /Too many requests/.test(error.message),
    );
    const alone = bedrock.createStreamTranslator(context({}, {}, true));
    assert.throws(
      () => alone.push(bytesOf([{ exception: 'modelStreamErrorException', message: 'The model failed.' }])),
      (error: unknown) => error instanceof UpstreamError && error.status === 424,
    );
  });

  it('fails a stream cut in the middle of a frame or before messageStop, and a corrupt frame', () => {
    const bytes = bytesOf(TEXT_STREAM);
    const cut = bedrock.createStreamTranslator(context({}, {}, true));
    cut.push(bytes.subarray(0, bytes.length - 3));
    assert.throws(() => cut.end(), (error: unknown) => error instanceof UpstreamError && /cut/.test(error.message));
    const early = bedrock.createStreamTranslator(context({}, {}, true));
    early.push(bytesOf(TEXT_STREAM.slice(0, 3)));
    assert.throws(() => early.end(), (error: unknown) => error instanceof UpstreamError && /before messageStop/.test(error.message));
    const corrupt = Buffer.from(bytesOf(TEXT_STREAM.slice(0, 1)));
    corrupt.writeUInt8(corrupt.readUInt8(corrupt.length - 6) ^ 0xff, corrupt.length - 6);
    assert.throws(() => bedrock.createStreamTranslator(context({}, {}, true)).push(corrupt), (error: unknown) => error instanceof UpstreamError && error.status === 502);
  });
});

async function send(upstream: UpstreamRequest): Promise<Response> {
  return fetch(upstream.url, { method: upstream.method, headers: upstream.headers, body: upstream.body });
}

describe('bedrock adapter against the fake Bedrock', () => {
  let fake: FakeBedrock;
  let next: BedrockBehaviour;
  before(async () => {
    fake = await startFakeBedrock({ credentials: { [ACCESS_KEY_ID]: SECRET }, script: () => next });
  });
  after(() => fake.close());

  it('signs requests the independent SigV4 check accepts (session token, region, encoded model id)', async () => {
    next = { kind: 'converse', body: { output: { message: { role: 'assistant', content: [{ text: 'Salut' }] } }, stopReason: 'end_turn', usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 } } };
    const ctx = context({}, { customHost: fake.url, bedrock: { secretAccessKey: SECRET, sessionToken: 'tok-1', region: 'ap-southeast-2' } });
    const response = await send(await bedrock.buildChatRequest(ctx));
    assert.equal(response.status, 200);
    const received = fake.received.at(-1)!;
    assert.equal(received.signature.valid, true, received.signature.reason);
    assert.equal(received.signature.region, 'ap-southeast-2');
    assert.equal(received.signature.service, 'bedrock');
    assert.ok(received.signature.signedHeaders!.includes('x-amz-security-token'));
    assert.equal(received.headers['x-amz-security-token'], 'tok-1');
    assert.equal(received.modelId, MODEL);
    assert.equal(bedrock.parseChatResponse(await response.json(), ctx).choices[0]!.message.content, 'Salut');
  });

  it('a request signed with the wrong secret is refused, and the error body is read', async () => {
    const ctx = context({}, { customHost: fake.url, bedrock: { secretAccessKey: 'wrong-secret' } });
    const response = await send(await bedrock.buildChatRequest(ctx));
    assert.equal(response.status, 403);
    assert.match(bedrock.parseError(403, await response.json()).message, /signature we calculated does not match/);
  });

  it('streams through the event-stream translator', async () => {
    next = { kind: 'stream', frames: TOOL_STREAM, chunkBytes: 5 };
    const ctx = context({}, { customHost: fake.url }, true);
    const response = await send(await bedrock.buildChatRequest(ctx));
    assert.equal(response.headers.get('content-type'), 'application/vnd.amazon.eventstream');
    assert.equal(fake.received.at(-1)!.operation, 'converse-stream');
    const translator = bedrock.createStreamTranslator(ctx);
    const chunks: ChatCompletionChunk[] = [];
    for await (const part of response.body!) chunks.push(...translator.push(part));
    chunks.push(...translator.end());
    assert.deepEqual(chunks, translateAll(TOOL_STREAM, 1 << 20));
    assert.deepEqual(translator.usage(), { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });
  });

  it('lists foundation models through the signed control-plane request', async () => {
    const upstream = await bedrock.buildModelsRequest!(target({ customHost: fake.url }));
    const response = await send(upstream);
    assert.equal(fake.received.at(-1)!.signature.valid, true);
    assert.deepEqual(bedrock.parseModelsResponse!(await response.json()), {
      object: 'list',
      data: [{ id: 'anthropic.claude-3-5-sonnet-20240620-v1:0', object: 'model', created: 0, owned_by: 'Anthropic', provider: 'bedrock' }],
    });
  });
});
