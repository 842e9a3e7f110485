/**
 * The 0.3 <-> 1.0 bridge on what the end-to-end tests do not send (file and data parts, send
 * configuration, every task state), held to the 1.x SDK's own JSON codecs: what gw sends a 1.0
 * agent must parse with them, and what a 1.0 agent sends (their JSON) must come out as 0.3.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Role, SendMessageRequest, StreamResponse, TaskState } from '@a2a-js/sdk';
import { paramsTo, streamResponseTo, stateToV03, stateToV1 } from '../../gateway/a2a/bridge.js';

const BYTES = Buffer.from('%PDF-1.7 tiny').toString('base64');

describe('the A2A bridge', () => {
  test('0.3 send params become a 1.0 SendMessageRequest the SDK parses: every part kind, configuration', () => {
    const params = {
      message: {
        kind: 'message',
        messageId: 'm-1',
        contextId: 'c-1',
        role: 'user',
        parts: [
          { kind: 'text', text: 'read these' },
          { kind: 'file', file: { bytes: BYTES, mimeType: 'application/pdf', name: 'a.pdf' } },
          { kind: 'file', file: { uri: 'https://files.example.com/b.png', mimeType: 'image/png' } },
          { kind: 'data', data: { pages: 2 } },
        ],
      },
      configuration: { blocking: false, historyLength: 3, acceptedOutputModes: ['text/plain'], pushNotificationConfig: { url: 'https://hooks.example.com/a2a', token: 't' } },
      metadata: { skill: 'read' },
    };
    const bridged = SendMessageRequest.fromJSON(paramsTo('SendMessage', params, '1.0'));
    const message = bridged.message!;
    assert.equal(message.role, Role.ROLE_USER);
    assert.equal(message.contextId, 'c-1');
    const cases = message.parts.map((part) => part.content?.$case);
    assert.deepEqual(cases, ['text', 'raw', 'url', 'data']);
    assert.equal(Buffer.from(message.parts[1]!.content!.value as Uint8Array).toString(), '%PDF-1.7 tiny');
    assert.equal(message.parts[1]!.mediaType, 'application/pdf');
    assert.equal(message.parts[1]!.filename, 'a.pdf');
    assert.equal(message.parts[2]!.content!.value, 'https://files.example.com/b.png');
    assert.deepEqual(message.parts[3]!.content!.value, { pages: 2 });
    assert.equal(bridged.configuration!.returnImmediately, true);
    assert.equal(bridged.configuration!.historyLength, 3);
    assert.equal(bridged.configuration!.taskPushNotificationConfig!.url, 'https://hooks.example.com/a2a');
    assert.deepEqual(bridged.metadata, { skill: 'read' });
  });

  test('1.0 stream responses from the SDK come out as 0.3 events, final on terminal and waiting states', () => {
    const part = (text: string) => ({ content: { $case: 'text' as const, value: text }, metadata: undefined, filename: '', mediaType: '' });
    const status = (state: TaskState) =>
      StreamResponse.toJSON({ payload: { $case: 'statusUpdate', value: { taskId: 't-1', contextId: 'c-1', status: { state, message: undefined, timestamp: undefined }, metadata: undefined } } });
    assert.deepEqual(streamResponseTo(status(TaskState.TASK_STATE_WORKING), '0.3'), { kind: 'status-update', taskId: 't-1', contextId: 'c-1', status: { state: 'working' }, final: false });
    for (const [state, name] of [
      [TaskState.TASK_STATE_INPUT_REQUIRED, 'input-required'],
      [TaskState.TASK_STATE_COMPLETED, 'completed'],
      [TaskState.TASK_STATE_AUTH_REQUIRED, 'auth-required'],
    ] as const) {
      assert.deepEqual(streamResponseTo(status(state), '0.3'), { kind: 'status-update', taskId: 't-1', contextId: 'c-1', status: { state: name }, final: true });
    }
    const artifact = StreamResponse.toJSON({
      payload: {
        $case: 'artifactUpdate',
        value: { taskId: 't-1', contextId: 'c-1', artifact: { artifactId: 'a-1', name: 'out', description: '', parts: [part('done'), { content: { $case: 'data', value: [1, 2] }, metadata: undefined, filename: '', mediaType: '' }], metadata: undefined, extensions: [] }, append: false, lastChunk: true, metadata: undefined },
      },
    });
    assert.deepEqual(streamResponseTo(artifact, '0.3'), {
      kind: 'artifact-update',
      taskId: 't-1',
      contextId: 'c-1',
      artifact: { artifactId: 'a-1', name: 'out', parts: [{ kind: 'text', text: 'done' }, { kind: 'data', data: { value: [1, 2] } }] },
      lastChunk: true,
    });
  });

  test('task states map both ways, unknown words untouched', () => {
    for (const state of ['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed', 'rejected', 'auth-required']) {
      assert.equal(stateToV03(stateToV1(state)), state);
    }
    assert.equal(stateToV1('TASK_STATE_WORKING'), 'TASK_STATE_WORKING');
    assert.equal(stateToV03('working'), 'working');
  });
});
