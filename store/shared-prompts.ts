/**
 * The one question deleting a workspace asks of prompts: does the workspace hold shared prompts
 * or prompt partials? The prompts repository (store/repositories/prompts.ts) answers it; store.ts
 * wires it in. NO_SHARED_PROMPTS stands in where a test needs the guard out of the way.
 */
export interface SharedPromptsLookup {
  hasSharedPromptsOrPartials(workspaceId: string): Promise<boolean>;
}

export const NO_SHARED_PROMPTS: SharedPromptsLookup = {
  hasSharedPromptsOrPartials: async () => false,
};
