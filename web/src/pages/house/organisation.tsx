/** Organisation settings as gw answers them (GET /v1/admin/organisation/settings), with the SSO setup when readable. */
import type { OrganisationSettings } from '../../api/types';
import { JsonView } from '../../components/json-view';
import { ErrorNote, Loading } from '../../components/status';
import { useIdentity } from '../../identity-context';
import { useAsync } from '../../use-async';

const yes = (value: boolean | null | undefined) => (value === null || value === undefined ? '—' : value ? 'on' : 'off');

export function OrganisationPage() {
  const { api } = useIdentity();
  const settings = useAsync(() => api.get<OrganisationSettings>('/v1/admin/organisation/settings'), [api]);
  const s = settings.data;
  const facts: [string, string][] = s
    ? [
        ['Block inline configs', `${yes(s.block_inline_config)}${s.block_inline_config_forced ? ' (forced by the server)' : ''}`],
        ['User keys created on joining', yes(s.user_api_key_auto_create)],
        ['… in the default workspace', yes(s.default_workspace_user_api_key_auto_create)],
        ['Scopes of those keys', (s.user_api_key_auto_create_scopes ?? []).join(', ') || '—'],
        ['User key rotation', s.user_api_key_rotation_period === null || s.user_api_key_rotation_period === undefined ? 'none' : String(s.user_api_key_rotation_period)],
        ['Automatic user provisioning', s.disable_auto_provision_user ? 'off' : 'on'],
        ['Email domains', (s.email_domains ?? []).map((d) => (typeof d === 'string' ? d : JSON.stringify(d))).join(', ') || 'none'],
      ]
    : [];
  return (
    <section aria-labelledby="org-title">
      <h1 id="org-title" tabIndex={-1}>
        Organisation
      </h1>
      <ErrorNote error={settings.error} title="Could not load the settings" />
      {!s && !settings.error && <Loading what="Loading settings" />}
      {s && (
        <>
          <dl className="facts" aria-label="Organisation settings">
            {facts.map(([name, value]) => (
              <div key={name}>
                <dt>{name}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
          <h2>As gw answers it</h2>
          <JsonView value={s} label="Organisation settings as JSON" />
        </>
      )}
    </section>
  );
}
