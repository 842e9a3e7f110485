/** The Assistants v2 wire objects, as the spec defines them (generated types). */
import type { components } from '../../generated/types.js';

type Schemas = components['schemas'];
export type AssistantObject = Schemas['Assistant'];
export type ThreadObject = Schemas['Thread'];
export type MessageObject = Schemas['Message'];
export type RunObject = Schemas['Run'];
export type RunStepObject = Schemas['RunStep'];
export type AssistantTool = Schemas['AssistantTool'];
export type ToolResources = Schemas['ToolResources'];
export type CreateMessageRequest = Schemas['CreateMessageRequest'];
export type CreateThreadRequest = Schemas['CreateThreadRequest'];

export type RunToolCall = Schemas['RunToolCall'];
export type RunUsage = NonNullable<Schemas['RunUsage']>;
export type RunStatus = RunObject['status'];
export type RunOptions = Schemas['RunOptions'];
