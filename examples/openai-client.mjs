// The official openai client against gw. Runs without any provider key (mock_response);
// with OPENAI_API_KEY set it also calls OpenAI through gw.
//   GW_URL (default http://localhost:8787)  GW_API_KEY (a gw key, e.g. the admin key)
//   node examples/openai-client.mjs
import OpenAI from 'openai';

const baseURL = `${process.env.GW_URL ?? 'http://localhost:8787'}/v1`;
const gwKey = process.env.GW_API_KEY;
if (!gwKey) throw new Error('set GW_API_KEY to a gw API key (the admin key printed on first start, or GW_ADMIN_API_KEY)');

// 1. No provider key: gw answers by itself (mock_response), streaming included.
const demo = new OpenAI({ baseURL, apiKey: 'none', defaultHeaders: { 'x-gw-api-key': gwKey, 'x-gw-provider': 'openai' } });
const answer = await demo.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }], mock_response: 'Hello from gw' });
console.log('demo:', answer.choices[0].message.content);
const stream = await demo.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }], stream: true, mock_response: 'streamed from gw' });
let streamed = '';
for await (const chunk of stream) streamed += chunk.choices[0]?.delta?.content ?? '';
console.log('demo stream:', streamed);

// 2. A provider name plus its key: Authorization carries the OpenAI key, x-gw-api-key the gw key.
if (process.env.OPENAI_API_KEY) {
  const direct = new OpenAI({ baseURL, apiKey: process.env.OPENAI_API_KEY, defaultHeaders: { 'x-gw-api-key': gwKey, 'x-gw-provider': 'openai' } });
  const reply = await direct.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hi in five words.' }] });
  console.log('openai:', reply.choices[0].message.content);
}

// 3. A saved provider (examples/save-provider.sh): only baseURL and the gw key, the provider in the model name.
if (process.env.GW_PROVIDER_SLUG) {
  const plain = new OpenAI({ baseURL, apiKey: gwKey });
  const body = { model: `@${process.env.GW_PROVIDER_SLUG}/gpt-4o-mini`, messages: [{ role: 'user', content: 'Say hi in five words.' }] };
  if (!process.env.OPENAI_API_KEY) body.mock_response = 'Hello through a saved provider';
  const reply = await plain.chat.completions.create(body);
  console.log('saved provider:', reply.choices[0].message.content);
}
