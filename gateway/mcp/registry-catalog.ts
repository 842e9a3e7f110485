/**
 * The curated catalog of public remote MCP servers the registry lists after the organisation's own
 * integrations. Data only: adding a server here is a one-line change. Servers that need a
 * credential say so (auth_type headers): the integration made from an entry carries it.
 */
export interface CatalogEntry {
  id: string;
  name: string;
  slug: string;
  description: string;
  url: string;
  transport: 'http' | 'sse';
  auth_type: 'none' | 'headers';
  homepage: string;
}

export const REGISTRY_CATALOG: readonly CatalogEntry[] = [
  { id: "catalog:deepwiki", name: "DeepWiki", slug: "deepwiki", description: "Questions answered from the documentation of public GitHub repositories.", url: "https://mcp.deepwiki.com/mcp", transport: "http", auth_type: "none", homepage: "https://deepwiki.com" },
  { id: "catalog:github", name: "GitHub", slug: "github", description: "Repositories, issues and pull requests; send a GitHub token as the Authorization header.", url: "https://api.githubcopilot.com/mcp/", transport: "http", auth_type: "headers", homepage: "https://github.com/github/github-mcp-server" },
  { id: "catalog:hugging-face", name: "Hugging Face", slug: "hugging-face", description: "Search models, data sets and Spaces on the Hugging Face Hub.", url: "https://huggingface.co/mcp", transport: "http", auth_type: "headers", homepage: "https://huggingface.co/settings/mcp" },
  { id: "catalog:linear", name: "Linear", slug: "linear", description: "Issues, projects and comments in Linear.", url: "https://mcp.linear.app/sse", transport: "sse", auth_type: "headers", homepage: "https://linear.app/docs/mcp" },
  { id: "catalog:notion", name: "Notion", slug: "notion", description: "Pages and databases of a Notion workspace.", url: "https://mcp.notion.com/mcp", transport: "http", auth_type: "headers", homepage: "https://developers.notion.com/docs/mcp" },
  { id: "catalog:sentry", name: "Sentry", slug: "sentry", description: "Errors, issues and releases in Sentry.", url: "https://mcp.sentry.dev/mcp", transport: "http", auth_type: "headers", homepage: "https://docs.sentry.io/product/sentry-mcp/" },
  { id: "catalog:stripe", name: "Stripe", slug: "stripe", description: "Customers, payments and the Stripe documentation; send a restricted Stripe key as a bearer token.", url: "https://mcp.stripe.com", transport: "http", auth_type: "headers", homepage: "https://docs.stripe.com/mcp" },
];
