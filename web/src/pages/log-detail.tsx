import type { Log } from '../api/types';
import { JsonView } from '../components/json-view';
import { ErrorNote, Loading } from '../components/status';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';
import { Link } from '../router';
import { useAsync } from '../use-async';
import { useNames } from '../use-names';
import { keyLabel } from './logs';

/** One request: what was asked and answered (as logged: masked fields stay masked), timings, cost, route. */
export function LogDetail({ id }: { id: string }) {
  const { api } = useIdentity();
  const { data: log, error, loading } = useAsync(() => api.get<Log>(`/v1/logs/${encodeURIComponent(id)}`), [api, id]);
  const keyNames = useNames().data?.api_key;
  return (
    <section aria-labelledby="log-title">
      <p>
        <Link to="/logs">← All logs</Link>
      </p>
      <h1 id="log-title" tabIndex={-1}>
        Request {log ? log.trace_id : ''}
      </h1>
      <ErrorNote error={error} title="Could not load the log" />
      {loading && !log && <Loading what="Loading the log" />}
      {log && (
        <>
          <dl className="facts" aria-label="Summary">
            <Fact name="Status" value={String(log.status)} />
            <Fact name="Time" value={fmt.time(log.created_at)} />
            <Fact name="Endpoint" value={log.endpoint} />
            <Fact name="Provider" value={log.provider ?? '—'} />
            <Fact name="Model" value={log.model ?? '—'} />
            <Fact name="Trace id" value={log.trace_id} />
            <Fact name="Latency" value={fmt.ms(log.latency_ms)} />
            <Fact name="First byte" value={log.first_byte_ms === null || log.first_byte_ms === undefined ? '—' : fmt.ms(log.first_byte_ms)} />
            <Fact name="Tokens" value={`${fmt.count(log.prompt_tokens)} in · ${fmt.count(log.completion_tokens)} out`} />
            <Fact name="Cost" value={log.cost_unpriced ? 'unpriced' : fmt.usd(log.cost)} />
            <Fact name="Cache" value={log.cache_status} />
            <Fact name="Retries" value={String(log.retry_count)} />
            <Fact name="Streamed" value={log.stream ? 'yes' : 'no'} />
            <Fact name="API key" value={keyLabel(log, keyNames)} />
            {log.api_key_id && keyNames?.has(log.api_key_id) && <Fact name="API key id" value={log.api_key_id} />}
            <Fact name="Config" value={log.config_id ?? '—'} />
            <Fact name="Prompt" value={log.prompt_id ? `${log.prompt_id}${log.prompt_version ? ` v${log.prompt_version}` : ''}` : '—'} />
          </dl>
          {log.error && <ErrorNote error={new Error(`${log.error.code}: ${log.error.message}`)} title="The request failed" />}
          <h2>Route</h2>
          {log.route.length ? (
            <ol className="route" aria-label="Targets tried, in order">
              {log.route.map((step, i) => (
                <li key={i}>
                  target <code>{step.path || 'root'}</code> · {step.provider} · {step.status ?? 'no answer'}
                  {step.error ? ` · ${step.error}` : ''}
                </li>
              ))}
            </ol>
          ) : (
            <p>One provider, no fallback.</p>
          )}
          <h2>Guardrail verdicts</h2>
          {log.guardrail_results && log.guardrail_results.length ? <JsonView value={log.guardrail_results} label="Guardrail verdicts" /> : <p>No guardrail ran.</p>}
          <h2>Metadata</h2>
          <JsonView value={log.metadata} label="Metadata" />
          <h2>Request headers</h2>
          <JsonView value={log.request_headers} label="Request headers" />
          <div className="two">
            <div>
              <h2>Request body</h2>
              <JsonView value={log.request_body} label="Request body" />
            </div>
            <div>
              <h2>Response body</h2>
              <JsonView value={log.response_body} label="Response body" />
            </div>
          </div>
        </>
      )}
    </section>
  );
}

function Fact({ name, value }: { name: string; value: string }) {
  return (
    <div>
      <dt>{name}</dt>
      <dd>{value}</dd>
    </div>
  );
}
