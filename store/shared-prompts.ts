/**
 * The one question deleting a workspace asks of prompts: does the workspace hold shared prompts
 * or prompt partials? gw has no prompts yet, so the default answers no. The prompts repository,
 * when it is added, implements this interface and store.ts wires it in place of the default.
 */
export interface SharedPromptsLookup {
  hasSharedPromptsOrPartials(workspaceId: string): Promise<boolean>;
}

export const NO_PROMPTS_YET: SharedPromptsLookup = {
  hasSharedPromptsOrPartials: async () => false,
};
