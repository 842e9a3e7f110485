/**
 * Deployment snapshots, both sides. The control plane reads one organisation's synced rows,
 * versions them by a hash of the rows as stored (so an unchanged organisation answers 304 without
 * sending anything) and seals each credential column for the asking data plane. The data plane opens
 * them, re-seals them under its own key and replaces its copy in one transaction.
 */
import { createHash, type KeyObject } from 'node:crypto';
import type { Knex } from 'knex';
import type { SecretBox } from '../../store/secret-box.js';
import { readOrganisationSnapshot, replaceWithSnapshot, type ChangedRows, type SnapshotTables } from '../../store/deployment-snapshot.js';
import { sealerFor, type TransferKeys } from './transfer-seal.js';

export interface Snapshot {
  object: 'deployment_snapshot';
  version: string;
  organisation_id: string;
  sealing_public_key: string;
  tables: SnapshotTables;
}

/** The columns synced tables keep credentials in (sealed by the store's secret box): `secrets`, and an agent's client certificate key. */
const SEALED_COLUMNS = ['secrets', 'client_tls_key'];

function versionOf(tables: SnapshotTables): string {
  return createHash('sha256').update(JSON.stringify(tables)).digest('base64url').slice(0, 32);
}

function resealed(tables: SnapshotTables, reseal: (sealed: string) => string): SnapshotTables {
  return Object.fromEntries(
    Object.entries(tables).map(([name, rows]) => [
      name,
      rows.map((row) => {
        const sealed = SEALED_COLUMNS.filter((column) => typeof row[column] === 'string');
        return sealed.length ? { ...row, ...Object.fromEntries(sealed.map((column) => [column, reseal(row[column] as string)])) } : row;
      }),
    ]),
  );
}

/** Control plane: undefined when the data plane already holds `knownVersion`. */
export async function exportSnapshot(db: Knex, box: SecretBox, organisationId: string, recipient: KeyObject, knownVersion: string | undefined): Promise<{ version: string; snapshot?: Snapshot }> {
  const tables = await readOrganisationSnapshot(db, organisationId);
  const version = versionOf(tables);
  if (knownVersion === version) return { version };
  const sealer = sealerFor(recipient);
  return {
    version,
    snapshot: {
      object: 'deployment_snapshot',
      version,
      organisation_id: organisationId,
      sealing_public_key: sealer.publicKey,
      tables: resealed(tables, (stored) => sealer.seal(box.open(stored))),
    },
  };
}

/** Data plane: opens the transfer seals, seals under this gw's key, and replaces the local copy. */
export async function applySnapshot(db: Knex, box: SecretBox, keys: TransferKeys, snapshot: Snapshot): Promise<ChangedRows> {
  const open = keys.openerFor(snapshot.sealing_public_key);
  return replaceWithSnapshot(db, resealed(snapshot.tables, (sealed) => box.seal(open(sealed))));
}
