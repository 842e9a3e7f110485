import { query, type Handler } from '../types.js';

/**
 * Whether "Sign in with SSO" would start a sign-in, for a sign-in page that cannot authenticate.
 * It picks the organisation as /v1/auth/sso/login does, and answers only a boolean: an unknown
 * organisation is `false` like one without SSO, so the route tells nobody which organisations exist.
 */
export const getSsoStatus: Handler = async (c, call) => {
  const input = query<'getSsoStatus'>(c);
  const { store } = call.services;
  const organisation = input.organisation ? await store.organisations.find(input.organisation) : await store.organisations.sole();
  const settings = organisation ? await store.sso.get(organisation.id) : undefined;
  return { body: { enabled: Boolean(settings?.enabled) }, headers: { 'cache-control': 'no-store' } };
};
