export { getSsoSettings, updateSsoSettings, deleteSsoSettings } from './sso-settings.js';
export { startSsoSignIn, finishSsoSignIn } from './sso-sign-in.js';
export { getSsoStatus } from './sso-status.js';
export { signOut, revokeUserSessions } from './sessions.js';
export { getAuthSelf } from './self.js';
export { getAuthKey } from './key.js';
