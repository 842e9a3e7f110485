import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import express from 'express';
import { Role } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { reportReady } from './child-ipc.js';

// An A2A 1.0 agent built with the SDK that answers every message with a message: what the A2A row
// measures is the hop through gw, not the agent.
const echo: AgentExecutor = {
  async execute(context, bus) {
    bus.publish(AgentEvent.message({ ...context.userMessage, messageId: randomUUID(), role: Role.ROLE_AGENT, contextId: context.contextId, taskId: '' }));
    bus.finished();
  },
  async cancelTask() {},
};

const app = express();
const server = app.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = {
    name: 'bench agent',
    description: 'Echoes',
    version: '1',
    supportedInterfaces: [{ url: `${url}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card as unknown as ConstructorParameters<typeof DefaultRequestHandler>[0], new InMemoryTaskStore(), echo);
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/rpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  reportReady((server.address() as AddressInfo).port);
});
server.keepAliveTimeout = 65_000;
