import { useState } from 'react';
import { toExportFilters } from '../api/log-filters';
import type { CreateLogExport, LogExport, LogField, LogQuery, Page } from '../api/types';
import { ErrorNote } from '../components/status';
import { fmt } from '../format';
import { useIdentity } from '../identity-context';
import { useAsync } from '../use-async';

const FIELDS: LogField[] = ['id', 'created_at', 'trace_id', 'endpoint', 'workspace_id', 'api_key_id', 'provider', 'model', 'status', 'latency_ms', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost', 'cache_status', 'retry_count', 'route', 'metadata', 'error'];

/** Exports of the filtered logs as JSON lines: created, started, and downloaded from here. */
export function LogExports({ query }: { query: () => LogQuery }) {
  const { api } = useIdentity();
  const list = useAsync(() => api.get<Page<LogExport>>('/v1/logs/exports', { limit: 10 }), [api]);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const start = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const body: CreateLogExport = { description: 'From the console', filters: toExportFilters(query()) as CreateLogExport['filters'], requested_fields: FIELDS };
      const created = await api.send<LogExport>('POST', '/v1/logs/exports', body);
      await api.send<LogExport>('POST', `/v1/logs/exports/${created.id}/start`);
      list.reload();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const download = async (item: LogExport) => {
    setError(undefined);
    try {
      const res = await api.fetch(`/v1/logs/exports/${item.id}/download`);
      const url = URL.createObjectURL(await res.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = `gw-logs-${item.id}.jsonl`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <section aria-labelledby="exports-title" className="panel">
      <h2 id="exports-title">Exports</h2>
      <div className="actions">
        <button type="button" onClick={() => void start()} disabled={busy}>
          Export these logs
        </button>
        <button type="button" className="secondary" onClick={list.reload}>
          Refresh
        </button>
      </div>
      <ErrorNote error={error ?? list.error} title="Export" />
      {list.data && list.data.data.length > 0 && (
        <table aria-label="Log exports">
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Status</th>
              <th scope="col">Rows</th>
              <th scope="col">File</th>
            </tr>
          </thead>
          <tbody>
            {list.data.data.map((item) => (
              <tr key={item.id}>
                <td>{fmt.time(item.created_at)}</td>
                <td>{item.status}</td>
                <td>
                  {item.processed_rows}
                  {item.total_rows !== null ? ` / ${item.total_rows}` : ''}
                </td>
                <td>
                  {item.status === 'success' ? (
                    <button type="button" className="link" onClick={() => void download(item)}>
                      Download
                    </button>
                  ) : (
                    (item.error?.message ?? '—')
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
