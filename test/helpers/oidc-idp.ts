/**
 * An OpenID Connect identity provider on loopback: oidc-provider (a certified OP from npm) with
 * one confidential client for gw, PKCE required, and an interaction step that signs in whichever
 * account the test names next (standing in for the login form and consent screen).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface IdpAccount {
  sub: string;
  email: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
}

export interface OidcIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The account the next sign-in authenticates as. */
  signInAs(account: IdpAccount): void;
  close(): Promise<void>;
}

export async function startOidcIdp(redirectUris: string[]): Promise<OidcIdp> {
  const accounts = new Map<string, IdpAccount>();
  let next: IdpAccount | undefined;
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'gw-console';
  const clientSecret = 'idp-client-secret-0123456789';

  const provider = new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: redirectUris, grant_types: ['authorization_code'], response_types: ['code'] }],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
    findAccount: async (_ctx, id) => {
      const account = accounts.get(id);
      return account ? { accountId: id, claims: async () => ({ ...account, email_verified: account.email_verified ?? true }) } : undefined;
    },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    if (!req.url?.startsWith('/interaction/')) return provider.callback()(req, res);
    try {
      const details = await provider.interactionDetails(req, res);
      const account = next;
      if (!account) throw new Error('the test named no account to sign in as');
      accounts.set(account.sub, account);
      const grant = new provider.Grant({ accountId: account.sub, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId: account.sub }, consent: { grantId } }, { mergeWithLastSubmission: false });
    } catch (error) {
      res.statusCode = 500;
      res.end(String(error));
    }
  }

  return {
    issuer,
    clientId,
    clientSecret,
    signInAs(account) {
      next = account;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A browser's walk through the provider's redirects (its cookies kept), until it is sent back to `untilPrefix`. */
export async function followToCallback(start: string, untilPrefix: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(untilPrefix)) return new URL(url);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    const location = response.headers.get('location');
    if (!location) throw new Error(`the identity provider answered ${response.status} at ${url}: ${await response.text()}`);
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects');
}
