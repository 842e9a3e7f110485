/**
 * API keys: who holds them, when they were last used, what they spent this period against their
 * budget; create (key-form.tsx), rotate, revoke. Spend comes from the analytics grouped by key
 * (answered requests), one call per distinct budget period; last use from each key's newest log row.
 */
import { useState } from 'react';
import { can } from '../api/identity';
import { periodStart } from '../api/key-presets';
import type { AnalyticsGroups, ApiKey, ApiKeyWithSecret, LogSummary, Page, User } from '../api/types';
import { ConfirmButton } from '../components/confirm-button';
import { SecretOnce } from '../components/secret-once';
import { ErrorNote, Loading, Empty } from '../components/status';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';
import { useAsync } from '../use-async';
import { CreateKeyForm, EditLimitsForm } from './key-form';

type Totals = AnalyticsGroups['data'][number];

/** Each key's totals since its period began (undefined where analytics are not readable). */
async function usageByKey(api: ReturnType<typeof useIdentity>['api'], keys: ApiKey[], now: Date): Promise<Map<string, Totals>> {
  const starts = new Map<string, ApiKey[]>();
  for (const key of keys) {
    const start = periodStart(key, now).toISOString();
    starts.set(start, [...(starts.get(start) ?? []), key]);
  }
  const usage = new Map<string, Totals>();
  await Promise.all(
    [...starts.entries()].map(async ([start, group]) => {
      // Answered requests only: what gw refused (a limit, a guardrail) or failed on is not usage.
      const answer = await api.get<AnalyticsGroups>('/v1/analytics/groups/api_key', { start_time: start, end_time: now.toISOString(), status: '2xx' });
      const wanted = new Set(group.map((k) => k.id));
      for (const row of answer.data) if (row.key && wanted.has(row.key)) usage.set(row.key, row);
    }),
  );
  return usage;
}

function used(key: ApiKey, totals: Totals | undefined): number {
  if (!totals) return 0;
  const type = key.usage_limits?.type ?? 'cost';
  return type === 'tokens' ? totals.total_tokens : type === 'requests' ? totals.requests : totals.cost;
}

function amount(type: string, n: number): string {
  return type === 'cost' ? fmt.usd(n) : `${fmt.count(n)} ${type}`;
}

export function KeysPage() {
  const identity = useIdentity();
  const { api } = identity;
  const keys = useAsync(() => api.get<Page<ApiKey>>('/v1/api-keys', { limit: 100 }), [api]);
  const active = keys.data?.data.filter((k) => k.status === 'active') ?? [];
  const mayAnalyse = can(identity, 'analytics.view');
  const usage = useAsync(() => (mayAnalyse && active.length ? usageByKey(api, active, new Date()) : Promise.resolve(new Map<string, Totals>())), [api, keys.data]);
  const users = useAsync(() => (can(identity, 'users.list') ? api.get<Page<User>>('/v1/admin/users', { limit: 100 }).then((p) => new Map(p.data.map((u) => [u.id, u.email]))) : Promise.resolve(new Map<string, string>())), [api]);
  const [secret, setSecret] = useState<{ name: string; key: string }>();
  const [creating, setCreating] = useState(false);
  const [limiting, setLimiting] = useState<ApiKey>();
  const [error, setError] = useState<unknown>();

  const act = async (run: () => Promise<void>) => {
    setError(undefined);
    try {
      await run();
      keys.reload();
    } catch (failure) {
      setError(failure);
    }
  };
  const rotate = (key: ApiKey) =>
    act(async () => {
      const rotated = await api.send<ApiKeyWithSecret>('POST', `/v1/api-keys/${key.id}/rotate`, {});
      setSecret({ name: rotated.name, key: rotated.key });
    });
  const revoke = (key: ApiKey) => act(() => api.send('DELETE', `/v1/api-keys/${key.id}`));

  const mayUpdate = can(identity, 'api_keys.update');
  const mayDelete = can(identity, 'api_keys.delete');
  const owner = (key: ApiKey) => (key.user_id ? (users.data?.get(key.user_id) ?? key.user_id) : `${key.type} service`);
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title" tabIndex={-1}>
        API keys
      </h1>
      {secret && <SecretOnce name={secret.name} secret={secret.key} onDone={() => setSecret(undefined)} />}
      {can(identity, 'api_keys.create') && !creating && (
        <button type="button" onClick={() => setCreating(true)}>
          New key
        </button>
      )}
      {creating && (
        <CreateKeyForm
          onCreated={(k) => {
            setCreating(false);
            setSecret({ name: k.name, key: k.key });
            keys.reload();
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      {limiting && (
        <EditLimitsForm
          key={limiting.id}
          apiKey={limiting}
          onSaved={() => {
            setLimiting(undefined);
            keys.reload();
          }}
          onCancel={() => setLimiting(undefined)}
        />
      )}
      <ErrorNote error={error ?? keys.error} title="API keys" />
      {keys.loading && !keys.data && <Loading what="Loading keys" />}
      {keys.data && active.length === 0 && <Empty>No active keys.</Empty>}
      {active.length > 0 && (
        <div className="table-scroll">
          <table aria-label="Active API keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Owner</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Last used</th>
                <th scope="col">Spend this period</th>
                <th scope="col">Limit</th>
                <th scope="col">Used</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {active.map((key) => {
                const totals = usage.data?.get(key.id);
                const limit = key.usage_limits;
                const share = limit ? used(key, totals) / limit.credit_limit : undefined;
                return (
                  <tr key={key.id}>
                    <td>{key.name}</td>
                    <td>{owner(key)}</td>
                    <td className="mono">{key.masked_key}</td>
                    <td>{key.scopes.length}</td>
                    <td>
                      <LastUsed keyId={key.id} />
                    </td>
                    <td>{mayAnalyse ? (usage.data ? fmt.usd(totals?.cost ?? 0) : '…') : '—'}</td>
                    <td>{limit ? `${amount(limit.type, limit.credit_limit)} ${limit.periodic_reset ?? (limit.periodic_reset_days ? `every ${limit.periodic_reset_days} days` : 'in all')}` : 'none'}</td>
                    <td>
                      {limit && share !== undefined && usage.data ? (
                        <span className="usage">
                          <meter min={0} max={1} low={0.8} high={0.95} optimum={0} value={Math.min(share, 1)} aria-label={`Budget used by ${key.name}`} />
                          {amount(limit.type, used(key, totals))} ({fmt.percent(share)})
                        </span>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td>{key.expires_at ? fmt.time(key.expires_at) : 'never'}</td>
                    <td className="row-actions">
                      <button type="button" className="secondary" disabled={!mayUpdate} title={mayUpdate ? undefined : 'Needs api_keys.update'} onClick={() => setLimiting(key)} aria-label={`Edit the limits of ${key.name}`}>
                        Limits
                      </button>
                      <button type="button" className="secondary" disabled={!mayUpdate} title={mayUpdate ? undefined : 'Needs api_keys.update'} onClick={() => void rotate(key)} aria-label={`Rotate ${key.name}`}>
                        Rotate
                      </button>
                      <ConfirmButton verb="Revoke" gerund="revoking" name={key.name} scope="api_keys.delete" allowed={mayDelete} onConfirm={() => revoke(key)} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The time of the key's newest request log row (needs logs.list). */
function LastUsed({ keyId }: { keyId: string }) {
  const identity = useIdentity();
  const mayRead = can(identity, 'logs.list');
  const last = useAsync(() => (mayRead ? identity.api.get<Page<LogSummary>>('/v1/logs', { api_key_id: keyId, limit: 1 }).then((p) => p.data[0]?.created_at ?? null) : Promise.resolve(undefined)), [identity.api, keyId]);
  if (!mayRead) return <>—</>;
  if (last.data === undefined) return <>{last.error ? '?' : '…'}</>;
  return <>{last.data ? fmt.time(last.data) : 'never'}</>;
}
