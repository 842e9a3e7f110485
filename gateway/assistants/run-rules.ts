/** What a run may ask for beyond what the spec's schema says (the seed's Limits table is in the schema). */
import { ValidationError } from '../../server/errors.js';
import type { AssistantTool } from './wire.js';

/**
 * gw runs function tools only: it has no code sandbox, and file_search needs vector stores,
 * which this build does not have. Either is refused before the run starts, naming the tool.
 */
export function assertRunnableTools(tools: readonly AssistantTool[], param: string): void {
  tools.forEach((tool, index) => {
    if (tool.type === 'code_interpreter') {
      throw new ValidationError(`${param}[${index}].type code_interpreter is not supported: gw has no code sandbox`, `${param}[${index}].type`, 'unsupported_tool');
    }
    if (tool.type === 'file_search') {
      throw new ValidationError(`${param}[${index}].type file_search is not supported yet: gw has no vector stores`, `${param}[${index}].type`, 'unsupported_tool');
    }
  });
}
