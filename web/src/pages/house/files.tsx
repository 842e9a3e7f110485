/** Files and batches: uploaded files (download the content), batches with their progress and output. */
import { useState } from 'react';
import type { Api } from '../../api/client';
import type { Batch, OpenAIFile } from '../../api/types';
import { ResourceDetail, ResourceList, show, type ResourceSpec } from '../../components/resource-page';
import { ErrorNote } from '../../components/status';
import { useIdentity } from '../../identity-context';

/** Saves a file's content through the browser (the key never goes in a URL). */
async function download(api: Api, fileId: string, name: string): Promise<void> {
  const res = await api.fetch(`/v1/files/${encodeURIComponent(fileId)}/content`);
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function DownloadButton({ fileId, name, label }: { fileId: string; name: string; label: string }) {
  const { api } = useIdentity();
  const [error, setError] = useState<unknown>();
  return (
    <>
      <button type="button" className="link" aria-label={label} onClick={() => void download(api, fileId, name).catch(setError)}>
        Download
      </button>
      <ErrorNote error={error} />
    </>
  );
}

function progress(batch: Batch): string {
  const { total, completed, failed } = batch.request_counts;
  if (!total) return '—';
  return `${completed + failed} of ${total} (${Math.round(((completed + failed) / total) * 100)}%)${failed ? `, ${failed} failed` : ''}`;
}

const files: ResourceSpec<OpenAIFile> = {
  page: '/files/files',
  label: 'Files',
  listPath: '/v1/files',
  detailPath: (id) => `/v1/files/${id}`,
  id: (f) => f.id,
  name: (f) => f.filename,
  columns: [
    { name: 'Purpose', cell: (f) => f.purpose },
    { name: 'Size', cell: (f) => `${f.bytes.toLocaleString('en')} bytes` },
    { name: 'Uploaded', cell: (f) => show.unix(f.created_at) },
    { name: 'Content', cell: (f) => <DownloadButton fileId={f.id} name={f.filename} label={`Download ${f.filename}`} /> },
  ],
  facts: (f) => [
    ['Id', f.id],
    ['Purpose', f.purpose],
    ['Size', `${f.bytes.toLocaleString('en')} bytes`],
    ['Uploaded', show.unix(f.created_at)],
    ['Status', f.status],
  ],
};

const batches: ResourceSpec<Batch> = {
  page: '/files/batches',
  label: 'Batches',
  listPath: '/v1/batches',
  detailPath: (id) => `/v1/batches/${id}`,
  id: (b) => b.id,
  name: (b) => b.id,
  columns: [
    { name: 'Status', cell: (b) => b.status },
    { name: 'Progress', cell: (b) => progress(b) },
    { name: 'Endpoint', cell: (b) => <span className="mono">{b.endpoint}</span> },
    { name: 'Created', cell: (b) => show.unix(b.created_at) },
    { name: 'Output', cell: (b) => (b.output_file_id ? <DownloadButton fileId={b.output_file_id} name={`${b.id}-output.jsonl`} label={`Download the output of ${b.id}`} /> : '—') },
  ],
  facts: (b) => [
    ['Status', b.status],
    ['Progress', progress(b)],
    ['Endpoint', b.endpoint],
    ['Input file', b.input_file_id],
    ['Output file', b.output_file_id ? <DownloadButton fileId={b.output_file_id} name={`${b.id}-output.jsonl`} label="Download the output" /> : '—'],
    ['Error file', b.error_file_id ? <DownloadButton fileId={b.error_file_id} name={`${b.id}-errors.jsonl`} label="Download the errors" /> : '—'],
    ['Created', show.unix(b.created_at)],
    ['Completed', show.unix(b.completed_at)],
  ],
};

export function FilesPage({ rest }: { rest: string }) {
  const [, kind, id] = rest.split('/');
  if (kind === 'files' && id) return <ResourceDetail spec={files} id={decodeURIComponent(id)} />;
  if (kind === 'batches' && id) return <ResourceDetail spec={batches} id={decodeURIComponent(id)} />;
  return (
    <section aria-labelledby="files-title">
      <h1 id="files-title" tabIndex={-1}>
        Files and batches
      </h1>
      <p className="hint">Files uploaded to this workspace, and the batches run from them by gw.</p>
      <h2>Batches</h2>
      <ResourceList spec={batches} />
      <h2>Files</h2>
      <ResourceList spec={files} />
    </section>
  );
}
