/** What a run may ask for beyond what the spec's schema says (the seed's Limits table is in the schema). */
import { ValidationError } from '../../core/errors.js';
import type { AssistantTool } from './wire.js';

/**
 * gw runs function and file_search tools; it has no code sandbox, so code_interpreter is refused
 * before the run starts, naming the tool.
 */
export function assertRunnableTools(tools: readonly AssistantTool[], param: string): void {
  tools.forEach((tool, index) => {
    if (tool.type === 'code_interpreter') {
      throw new ValidationError(`${param}[${index}].type code_interpreter is not supported: gw has no code sandbox`, `${param}[${index}].type`, 'unsupported_tool');
    }
  });
}
