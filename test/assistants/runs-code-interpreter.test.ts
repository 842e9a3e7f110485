/**
 * code_interpreter runs with the official `openai` client over a fake OpenAI upstream: the fake
 * model calls the code_interpreter function gw offers with scripted Python, gw runs it in the
 * Pyodide sandbox (a child process per call, one kept loaded ahead), records a code_interpreter
 * step with its input and outputs, and the answer shows the files the code wrote.
 * Each call waits for a Python process to load (seconds), so the file runs few calls.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { fullEngines } from '../helpers/engines.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { ADMIN_KEY, startTestApp, type TestApp } from '../helpers/test-app.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const ANSWER = 'The total is in sandbox:/mnt/data/total.txt.';

type Step = OpenAI.Beta.Threads.Runs.RunStep;
type CodeCall = OpenAI.Beta.Threads.Runs.CodeInterpreterToolCall;

for (const engine of fullEngines()) describe(`code_interpreter runs (${engine.name})`, () => {
  let app: TestApp;
  let openai: FakeOpenAi;
  let listener: RecordingServer;
  let client: OpenAI;
  let numbersId: string;

  before(async () => {
    openai = await startFakeOpenAi();
    listener = await startRecordingServer((_request, res) => res.end('reached'));
    app = await startTestApp({
      engine,
      env: { TRUSTED_CUSTOM_HOSTS: '127.0.0.1', GW_JOBS_POLL_MS: '100', GW_CODE_INTERPRETER_TIMEOUT_SECONDS: '5', GW_CODE_INTERPRETER_MEMORY_MB: '400', GW_CODE_INTERPRETER_MAX_OUTPUT_BYTES: '3000', GW_CODE_INTERPRETER_MAX_CALLS: '1' },
    });
    const saved = await app.http.post('/v1/providers').set('x-gw-api-key', ADMIN_KEY).send({ name: 'OpenAI', slug: 'oai', ai_provider_id: 'openai', key: 'sk-oai', configurations: { custom_host: openai.url } });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    client = new OpenAI({ apiKey: ADMIN_KEY, baseURL: `${app.url}/v1`, maxRetries: 0 });
    numbersId = (await client.files.create({ file: await toFile(Buffer.from('1,2,3'), 'numbers.csv'), purpose: 'assistants' })).id;
  });
  after(async () => {
    await app?.close();
    await Promise.all([openai?.close(), listener?.close()]);
  });

  async function codeRun(code: string, answer: string, thread: OpenAI.Beta.ThreadCreateAndRunParams.Thread): Promise<{ run: OpenAI.Beta.Threads.Run; call: CodeCall; steps: Step[] }> {
    const assistant = await client.beta.assistants.create({ model: '@oai/gpt-4o-mini', tools: [{ type: 'code_interpreter' }], tool_resources: { code_interpreter: { file_ids: [numbersId] } } });
    openai.next({ kind: 'reply', toolCall: { name: 'code_interpreter', arguments: JSON.stringify({ code }) } }, { kind: 'reply', content: answer });
    const run = await client.beta.threads.createAndRunPoll({ assistant_id: assistant.id, thread }, { pollIntervalMs: 50 });
    assert.equal(run.status, 'completed', JSON.stringify(run.last_error));
    const steps = (await client.beta.threads.runs.steps.list(run.id, { thread_id: run.thread_id, order: 'asc' })).data;
    assert.deepEqual(steps.map((step) => [step.type, step.status]), [['tool_calls', 'completed'], ['message_creation', 'completed']]);
    const call = (steps[0]!.step_details as OpenAI.Beta.Threads.Runs.ToolCallsStepDetails).tool_calls[0] as CodeCall;
    assert.equal(call.type, 'code_interpreter');
    assert.equal(call.code_interpreter.input, code);
    return { run, call, steps };
  }

  it('runs the model\'s Python on the mounted files: logs in the step, written files become gw files, cited and shown in the answer', async () => {
    const attached = (await client.files.create({ file: await toFile(Buffer.from('hello from the thread'), 'note.txt'), purpose: 'assistants' })).id;
    const code = [
      'import base64',
      "print(open('/mnt/data/numbers.csv').read())",
      "print(open('/mnt/data/note.txt').read())",
      "open('/mnt/data/total.txt', 'w').write('sum=' + str(sum(int(n) for n in open('/mnt/data/numbers.csv').read().split(','))))",
      `open('/mnt/data/dot.png', 'wb').write(base64.b64decode('${PNG}'))`,
    ].join('\n');
    const before = openai.requests.length;
    const { run, call } = await codeRun(code, ANSWER, { messages: [{ role: 'user', content: 'Add the numbers up.', attachments: [{ file_id: attached, tools: [{ type: 'code_interpreter' }] }] }] });

    const turns = openai.requests.slice(before).filter((request) => request.path.endsWith('/chat/completions'));
    assert.equal(turns.length, 2);
    const offered = turns[0]!.body.tools as Array<{ function: { name: string; parameters: { required: string[] } } }>;
    assert.deepEqual(offered.map((tool) => [tool.function.name, tool.function.parameters.required]), [['code_interpreter', ['code']]]);
    // GW_CODE_INTERPRETER_MAX_CALLS=1: after one call the tool is no longer offered.
    assert.equal(turns[1]!.body.tools, undefined);
    const toolMessage = (turns[1]!.body.messages as Array<{ role: string; content: string }>).at(-1)!;
    assert.equal(toolMessage.role, 'tool');
    assert.match(toolMessage.content, /^1,2,3\nhello from the thread\n/);
    assert.match(toolMessage.content, /sandbox:\/mnt\/data\/total\.txt/);

    const [logs, image] = call.code_interpreter.outputs as [OpenAI.Beta.Threads.Runs.CodeInterpreterToolCall.CodeInterpreter.Logs, OpenAI.Beta.Threads.Runs.CodeInterpreterToolCall.CodeInterpreter.Image];
    assert.deepEqual(logs, { type: 'logs', logs: '1,2,3\nhello from the thread' });
    assert.equal(image.type, 'image');
    const png = await client.files.retrieve(image.image.file_id);
    assert.deepEqual([png.filename, png.purpose], ['dot.png', 'assistants_output']);
    assert.equal(Buffer.from(await (await client.files.content(png.id)).arrayBuffer()).toString('base64'), PNG);

    const [answer] = (await client.beta.threads.messages.list(run.thread_id)).data;
    const [shown, text] = answer!.content as [OpenAI.Beta.Threads.ImageFileContentBlock, OpenAI.Beta.Threads.TextContentBlock];
    assert.deepEqual(shown, { type: 'image_file', image_file: { file_id: png.id } });
    assert.equal(text.text.value, ANSWER);
    const annotation = text.text.annotations[0] as OpenAI.Beta.Threads.FilePathAnnotation;
    const cited = 'sandbox:/mnt/data/total.txt';
    assert.deepEqual({ ...annotation, file_path: undefined }, { type: 'file_path', text: cited, start_index: ANSWER.indexOf(cited), end_index: ANSWER.indexOf(cited) + cited.length, file_path: undefined });
    const total = await client.files.retrieve(annotation.file_path.file_id);
    assert.deepEqual([total.filename, total.purpose], ['total.txt', 'assistants_output']);
    assert.equal(await (await client.files.content(total.id)).text(), 'sum=6');
    assert.deepEqual(answer!.attachments, [{ file_id: total.id, tools: [{ type: 'code_interpreter' }] }]);
    // The mounted copies were only read: no file is made for them.
    assert.equal((await client.files.list({ purpose: 'assistants_output' })).data.filter((file) => file.filename === 'numbers.csv').length, 0);
  });

  it('code that loops forever is stopped at the time limit with an error output, and the run goes on to its answer', async () => {
    const { call } = await codeRun('while True:\n    pass', 'The code took too long.', { messages: [{ role: 'user', content: 'Loop.' }] });
    const outputs = call.code_interpreter.outputs as OpenAI.Beta.Threads.Runs.CodeInterpreterToolCall.CodeInterpreter.Logs[];
    assert.equal(outputs.length, 1);
    assert.match(outputs[0]!.logs, /timed out after 5 s/);
  });

  it('code that takes more memory than GW_CODE_INTERPRETER_MEMORY_MB is stopped with an error output', async () => {
    const { call } = await codeRun("data = bytearray(900 * 1024 * 1024)\nprint('allocated', len(data))", 'Too big.', { messages: [{ role: 'user', content: 'Allocate.' }] });
    const outputs = call.code_interpreter.outputs as OpenAI.Beta.Threads.Runs.CodeInterpreterToolCall.CodeInterpreter.Logs[];
    assert.equal(outputs.length, 1);
    assert.match(outputs[0]!.logs, /more than 400 MB/);
    assert.doesNotMatch(outputs[0]!.logs, /allocated/);
  });

  it('a cancel stops the code call and the run ends cancelled', async () => {
    const assistant = await client.beta.assistants.create({ model: '@oai/gpt-4o-mini', tools: [{ type: 'code_interpreter' }] });
    openai.next({ kind: 'reply', toolCall: { name: 'code_interpreter', arguments: JSON.stringify({ code: 'while True:\n    pass' }) } });
    let run = await client.beta.threads.createAndRun({ assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: 'Loop.' }] } });
    for (let i = 0; i < 400; i++) {
      const steps = await client.beta.threads.runs.steps.list(run.id, { thread_id: run.thread_id });
      if (steps.data.some((step) => step.type === 'tool_calls')) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await client.beta.threads.runs.cancel(run.id, { thread_id: run.thread_id });
    for (let i = 0; i < 400 && run.status !== 'cancelled'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      run = await client.beta.threads.runs.retrieve(run.id, { thread_id: run.thread_id });
    }
    assert.equal(run.status, 'cancelled');
    const [step] = (await client.beta.threads.runs.steps.list(run.id, { thread_id: run.thread_id })).data;
    const call = (step!.step_details as OpenAI.Beta.Threads.Runs.ToolCallsStepDetails).tool_calls[0] as CodeCall;
    assert.deepEqual(call.code_interpreter.outputs, [{ type: 'logs', logs: 'Execution was stopped: the run was cancelled' }]);
  });

  it('Python reaches neither the network nor the host file system (streamed: the step\'s input and outputs arrive as step deltas)', async () => {
    const port = new URL(listener.url).port;
    const code = [
      'import os',
      'def attempt(name, action):',
      '    try:',
      '        action()',
      "        print(name, 'reached')",
      '    except Exception as error:',
      "        print(name, 'refused', type(error).__name__)",
      'import js',
      `attempt('js.fetch', lambda: js.fetch('http://127.0.0.1:${port}/'))`,
      'import urllib.request',
      `attempt('urllib', lambda: urllib.request.urlopen('http://127.0.0.1:${port}/', timeout=2).read())`,
      'import socket',
      'def talk():',
      `    connection = socket.create_connection(('127.0.0.1', ${port}), timeout=2)`,
      "    connection.sendall(b'GET / HTTP/1.0\\r\\n\\r\\n')",
      '    if not connection.recv(100): raise OSError("no answer")',
      "attempt('socket', talk)",
      "from pyodide.code import run_js",
      "attempt('run_js', lambda: run_js('process'))",
      "attempt('Function', lambda: js.constructor.constructor('return process')())",
      "attempt('host file', lambda: open('/etc/hostname').read())",
      "print(sorted(os.listdir('/')))",
      "print('x' * 5000)",
    ].join('\n');
    const assistant = await client.beta.assistants.create({ model: '@oai/gpt-4o-mini', tools: [{ type: 'code_interpreter' }] });
    openai.next({ kind: 'reply', toolCall: { name: 'code_interpreter', arguments: JSON.stringify({ code }) } }, { kind: 'reply', content: 'No network.' });
    const events: OpenAI.Beta.AssistantStreamEvent[] = [];
    for await (const event of await client.beta.threads.createAndRun({ assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: 'Fetch.' }] }, stream: true })) events.push(event);
    assert.equal(events.at(-1)!.event, 'thread.run.completed');
    const deltas = events.filter((event) => event.event === 'thread.run.step.delta').map((event) => (event.data as OpenAI.Beta.Threads.Runs.RunStepDeltaEvent).delta.step_details as OpenAI.Beta.Threads.Runs.ToolCallDeltaObject);
    const codeDeltas = deltas.map((delta) => delta.tool_calls![0] as OpenAI.Beta.Threads.Runs.CodeInterpreterToolCallDelta);
    assert.equal(codeDeltas[0]!.type, 'code_interpreter');
    assert.equal(codeDeltas[0]!.code_interpreter!.input, code);
    const logs = (codeDeltas.at(-1)!.code_interpreter!.outputs![0] as OpenAI.Beta.Threads.Runs.CodeInterpreterLogs).logs!;
    for (const name of ['js.fetch', 'urllib', 'socket', 'run_js', 'Function', 'host file']) assert.match(logs, new RegExp(`^${name.replace('.', '\\.')} refused`, 'm'), logs);
    assert.doesNotMatch(logs, /reached/);
    // GW_CODE_INTERPRETER_MAX_OUTPUT_BYTES=3000 cuts the printed output.
    assert.ok(logs.endsWith('[output truncated]') && logs.length < 3100, logs.slice(-100));
    assert.equal(listener.received.length, 0, 'nothing reached the loopback listener');
    assert.doesNotMatch(logs, /'(etc|usr|work|root)'/, 'the host file system is not mounted');
    const completedStep = events.find((event) => event.event === 'thread.run.step.completed' && event.data.type === 'tool_calls')!.data as Step;
    assert.equal(((completedStep.step_details as OpenAI.Beta.Threads.Runs.ToolCallsStepDetails).tool_calls[0] as CodeCall).code_interpreter.input, code);
  });

  it('an attachment for code_interpreter naming an unknown file answers 404 (message create and thread create)', async () => {
    const thread = await client.beta.threads.create();
    const refused = await client.beta.threads.messages.create(thread.id, { role: 'user', content: 'x', attachments: [{ file_id: 'file-missing', tools: [{ type: 'code_interpreter' }] }] }).then(
      () => undefined,
      (error: unknown) => error as InstanceType<typeof OpenAI.APIError>,
    );
    assert.equal(refused?.status, 404);
    const onCreate = await client.beta.threads.create({ messages: [{ role: 'user', content: 'x', attachments: [{ file_id: 'file-missing', tools: [{ type: 'code_interpreter' }] }] }] }).then(
      () => undefined,
      (error: unknown) => error as InstanceType<typeof OpenAI.APIError>,
    );
    assert.equal(onCreate?.status, 404);
  });
});
