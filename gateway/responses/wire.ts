/** The Responses API's wire shapes, as generated from the spec. */
import type { components } from '../../generated/types.js';

type Schemas = components['schemas'];
export type CreateResponseRequest = Schemas['CreateResponseRequest'];
export type ResponseObject = Schemas['Response'];
export type InputItem = Schemas['InputItem'];
export type OutputItem = Schemas['OutputItem'];
export type OutputMessage = Schemas['OutputMessage'];
export type FunctionCallOutput = Schemas['FunctionCallOutput'];
export type CustomToolCallOutput = Schemas['CustomToolCallOutput'];
export type ReasoningOutput = Schemas['ReasoningOutput'];
export type ResponseTool = Schemas['ResponseTool'];
export type FunctionTool = Schemas['FunctionTool'];
export type CustomTool = Schemas['CustomTool'];
export type ToolOutput = Schemas['ToolOutput'];
/** A stored input item: what the request sent, with the id gw gave it when it had none. */
export type StoredInputItem = Schemas['ResponseItem'] & Record<string, unknown>;
export type ResponseItemList = Schemas['ResponseItemList'];
