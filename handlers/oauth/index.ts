export { getOAuthAuthorizationServerMetadata, getOAuthProtectedResourceMetadata } from './metadata.js';
export { registerOAuthClient } from './register.js';
export { authorizeOAuth, getOAuthConsent, postAuthorizeConsent } from './authorize.js';
export { exchangeOAuthToken } from './token.js';
