/**
 * The model catalog (GET /v1/models) beside what each model cost over the last 30 days
 * (analytics grouped by model): the observed price per million tokens, and models the price
 * catalog does not know flagged as unpriced (their calls counted no cost, so cost budgets miss them).
 */
import { can } from '../../api/identity';
import type { AnalyticsGroups, Model } from '../../api/types';
import { ErrorNote, Loading, Empty } from '../../components/status';
import { fmt } from '../../format';
import { useIdentity } from '../../identity-context';
import { useAsync } from '../../use-async';

type Totals = AnalyticsGroups['data'][number];
const MONTH = 30 * 86_400_000;

export interface CatalogRow {
  /** The model's name as calls and logs carry it (`gpt-4o`). */
  id: string;
  /** Who offers it: the saved providers (`@slug`) or catalog providers listing it. */
  providers: string[];
  requests: number;
  cost: number;
  /** USD per million tokens, as the calls were charged; null when nothing priced was called. */
  pricePerMillion: number | null;
  unpriced: boolean;
}

/** `@slug/gpt-4o` names gpt-4o through a saved provider; logs and analytics know it as gpt-4o. */
function bareName(model: Model): string {
  return model.id.startsWith('@') && model.id.includes('/') ? model.id.slice(model.id.indexOf('/') + 1) : model.id;
}

/**
 * One row per model name, from the catalog and the traffic (models called but not listed are
 * added); the most used first.
 */
export function catalogRows(models: Model[], usage: Totals[]): CatalogRow[] {
  const byModel = new Map(usage.filter((u) => u.key).map((u) => [u.key!, u]));
  const providers = new Map<string, string[]>();
  for (const model of models) {
    const name = bareName(model);
    const by = model.provider ?? model.owned_by;
    providers.set(name, [...new Set([...(providers.get(name) ?? []), by])]);
  }
  const names = [...new Set([...providers.keys(), ...byModel.keys()])];
  const rows = names.map((id) => {
    const u = byModel.get(id);
    const pricedTokens = u && u.unpriced_requests < u.requests ? u.total_tokens : 0;
    return {
      id,
      providers: providers.get(id) ?? [],
      requests: u?.requests ?? 0,
      cost: u?.cost ?? 0,
      pricePerMillion: u && pricedTokens > 0 && u.cost > 0 ? (u.cost / pricedTokens) * 1_000_000 : null,
      unpriced: Boolean(u && u.unpriced_requests > 0),
    };
  });
  return rows.sort((a, b) => b.requests - a.requests);
}

export function ModelsPage() {
  const identity = useIdentity();
  const { api } = identity;
  const mayAnalyse = can(identity, 'analytics.view');
  const data = useAsync(async () => {
    const now = Date.now();
    const [models, usage] = await Promise.all([
      api.get<{ data: Model[] }>('/v1/models'),
      mayAnalyse ? api.get<AnalyticsGroups>('/v1/analytics/groups/model', { start_time: new Date(now - MONTH).toISOString(), end_time: new Date(now).toISOString() }) : Promise.resolve({ data: [] as Totals[] }),
    ]);
    return catalogRows(models.data, usage.data);
  }, [api]);
  const rows = data.data ?? [];
  const unpriced = rows.filter((r) => r.unpriced).length;
  return (
    <section aria-labelledby="models-title">
      <h1 id="models-title" tabIndex={-1}>
        Models
      </h1>
      <p className="hint">The models gw offers, and what calls to each cost over the last 30 days. gw charges from its bundled price catalog; a model it has no price for is flagged unpriced.</p>
      <ErrorNote error={data.error} title="Could not load the models" />
      {!data.data && !data.error && <Loading what="Loading models" />}
      {data.data && rows.length === 0 && <Empty>No models.</Empty>}
      {unpriced > 0 && (
        <p className="bad" role="status">
          {unpriced === 1 ? '1 model was called without a price: its cost is not counted (nor by cost budgets).' : `${unpriced} models were called without a price: their cost is not counted (nor by cost budgets).`}
        </p>
      )}
      {rows.length > 0 && (
        <div className="table-scroll">
          <table aria-label="Model catalog">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Offered by</th>
                <th scope="col">Requests (30 days)</th>
                <th scope="col">Cost (30 days)</th>
                <th scope="col">Price per 1M tokens</th>
                <th scope="col">Priced</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <td className="mono">{r.id}</td>
                  <td>{r.providers.join(', ') || '—'}</td>
                  <td>{fmt.count(r.requests)}</td>
                  <td>{fmt.usd(r.cost)}</td>
                  <td>{r.pricePerMillion === null ? '—' : fmt.usd(r.pricePerMillion)}</td>
                  <td>{r.unpriced ? <span className="bad">unpriced</span> : r.requests ? 'yes' : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
