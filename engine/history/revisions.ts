/**
 * A record's revisions, built from the change capture: its values now (recorded columns and link
 * sets), then each earlier entry's `[old, new]` pairs undone, newest first, so every version has the
 * values the record had after it, whether or not its entries go back to its creation (seeded
 * records) or some were pruned. A delete entry (a record restored from the trash) gives the values
 * before it. The caller sees the versions whose entries `/api/audit` shows them (entryVisible);
 * a restore writes a version's values back through the resource service's `update`, so validation,
 * permissions, references, state machines and hooks apply, and is itself a new version.
 */
import { revealValues } from '../storage/field-encryption.js';
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { entryVisible } from '../audit/resource.js';
import { capturedColumns } from '../audit/capture-triggers.js';
import { rowsOf } from '../crud/rows.js';
import type { ResourceService } from '../crud/service.js';
import { notFound } from '../errors.js';
import { isoTimestamp } from '../fields/values.js';
import { q } from '../storage/sql.js';

type Values = Record<string, unknown>;

export interface Version {
  /** The audit entry's id: stable, and what a restore names. */
  version: number;
  at: string;
  user: number | null;
  action: 'create' | 'update';
  request_id: string | null;
  values: Values;
}

interface Entry extends Omit<Version, 'values'> {
  changes: Record<string, unknown>;
  visible: boolean;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export class Revisions {
  constructor(
    private readonly db: Knex,
    readonly service: ResourceService,
  ) {}

  /** The record's values now and its entries, newest first, each marked whether `user` may see it. */
  private async read(user: Principal, id: number): Promise<{ now: Values; entries: Entry[] }> {
    const r = this.service.resource;
    // 404 unless the caller sees the record now
    await this.service.retrieve(user, id, { fields: 'id' });
    const links = r.manyToMany.map((m) => ` || jsonb_build_object(?::text, to_jsonb(array(select j.${q(m.spec.targetColumn)} from ${q(m.spec.table)} j where j.${q(m.spec.sourceColumn)} = t.id order by 1)))`);
    const [row] = rowsOf(
      await this.db.raw(
        `select coalesce((select jsonb_object_agg(key, value) from jsonb_each(to_jsonb(t)) where key = any(?)), '{}')${links.join('')} as values from ${q(r.table)} t where t.id = ?`,
        [capturedColumns(r).recorded, ...r.manyToMany.map((m) => m.writeName), id],
      ),
    );
    if (!row) throw notFound();
    const visible = entryVisible(r, user, 'e');
    const entries = rowsOf(
      await this.db.raw(
        `select e.id as version, ${isoTimestamp('e.at')} as at, e.user_id as user, e.action, e.request_id, e.changes, ${visible?.sql ?? 'true'} as visible
           from audit_entries e where e.resource = ? and e.record_id = ? and e.action in ('create', 'update', 'delete') order by e.id desc`,
        [...(visible?.bindings ?? []), r.key, id] as Knex.RawBinding[],
      ),
    ) as unknown as Entry[];
    return { now: row.values as Values, entries: entries.map((e) => ({ ...e, version: Number(e.version) })) };
  }

  /** The versions `user` may see, newest first; 404 when they cannot see the record. */
  async list(user: Principal, id: number): Promise<Version[]> {
    const { now, entries } = await this.read(user, id);
    return versionsOf(now, entries);
  }

  /** Writes version `version`'s values back where they differ from the record's now; answers the record as stored. */
  async restore(user: Principal, id: number, version: number): Promise<string> {
    const { now, entries } = await this.read(user, id);
    const chosen = versionsOf(now, entries).find((v) => v.version === version);
    if (!chosen) throw notFound();
    const r = this.service.resource;
    const writes: [string, string][] = [
      ...r.fields.filter((f) => f.writable && f.column).map((f): [string, string] => [f.column!, f.name]),
      ...r.foreignKeys.map((fk): [string, string] => [fk.column, fk.writeName]),
      ...r.manyToMany.map((m): [string, string] => [m.writeName, m.writeName]),
    ];
    // encrypted values are compared and written back as their plain values (each write encrypts anew)
    const [values, current] = [reveal(chosen.values), reveal(now)];
    const body: Values = {};
    for (const [key, name] of writes) if (key in values && !same(values[key], current[key])) body[name] = values[key];
    return this.service.update(user, id, body, true);
  }
}

const reveal = (values: Values): Values => JSON.parse(revealValues(JSON.stringify(values))) as Values;

/** The visible versions, newest first: `now`, then each entry's changes undone in turn. */
function versionsOf(now: Values, entries: readonly Entry[]): Version[] {
  const versions: Version[] = [];
  let values = now;
  for (const e of entries) {
    if (e.action === 'update' || e.action === 'create') {
      if (e.visible) versions.push({ version: e.version, at: e.at, user: e.user, action: e.action, request_id: e.request_id, values });
      values = e.action === 'create' ? {} : { ...values, ...Object.fromEntries(Object.entries(e.changes).map(([k, pair]) => [k, (pair as unknown[])[0]])) };
    } else {
      // the record before its delete: the values the delete entry left, its links as restored
      values = { ...values, ...e.changes };
    }
  }
  return versions;
}
