/**
 * The change capture's functions of their own (engine/audit/capture-function.ts, link-capture.ts,
 * engine/storage/declared-triggers.ts): every declared table and link table calls a function with
 * its columns written out, which records what the generic function of the migrations recorded; the
 * functions are kept in step with the declarations; the flush reads a relation it does not know.
 */
import { expect } from 'chai';
import type { Knex } from 'knex';
import { suite } from './support/hooks.js';
import { created, unique } from './support/fixtures.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { syncCaptureTriggers } from '../engine/audit/capture-triggers.js';
import { flushBody, syncLinkCaptureTriggers } from '../engine/audit/link-capture.js';
import { CREATED_RECORD, createdRecord } from '../engine/audit/capture-function.js';
import { ownFunction } from '../engine/storage/declared-triggers.js';

/** Table → the function its trigger `name` calls. */
async function calls(db: Knex, name: string): Promise<Map<string, string>> {
  const { rows } = (await db.raw(`select c.relname as "table", p.proname as fn from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_proc p on p.oid = t.tgfoid where t.tgname = ?`, [name])) as {
    rows: { table: string; fn: string }[];
  };
  return new Map(rows.map((r) => [r.table, r.fn]));
}

const functionExists = async (db: Knex, name: string) => ((await db.raw('select 1 from pg_proc where proname = ?', [name])) as { rows: unknown[] }).rows.length === 1;

/** Runs `work` in a transaction that is rolled back, and answers what it answered. */
async function rolledBack<T>(db: Knex, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  let result: T | undefined;
  const undo = new Error('rolled back on purpose');
  await db
    .transaction(async (trx) => {
      result = await work(trx);
      throw undo;
    })
    .catch((err: unknown) => {
      if (err !== undo) throw err;
    });
  return result!;
}

describe("the change capture's functions of their own", () => {
  it('every declared table and link table calls its own function, none the generic one', async () => {
    const { db } = suite().service;
    const registry = await loadRegistry();
    const records = await calls(db, 'bms_capture');
    const links = await calls(db, 'bms_capture_links');
    const linkTables = new Set(registry.resources.flatMap((r) => r.manyToMany.map((m) => m.spec.table)));
    expect(registry.resources.length).to.be.greaterThan(80);
    for (const r of registry.resources) expect(records.get(r.table), r.key).to.equal(ownFunction('bms_capture', r.table));
    for (const table of linkTables) expect(links.get(table), table).to.equal(ownFunction('bms_capture_links', table));
    expect([...records.values(), ...links.values()]).to.not.include.members(['bms_capture', 'bms_capture_links']);
    // a name past 63 characters ends in a hash of the table's, and stays unique
    const long = ownFunction('bms_capture_links', 'x'.repeat(57));
    expect(long).to.have.length(63).and.match(/_[0-9a-f]{8}$/);
    expect(ownFunction('bms_capture_links', `${'x'.repeat(56)}y`)).to.not.equal(long);
  });

  it('records what the generic functions recorded: creates with links, an update, links removed, a delete, entry by entry, and the events sent', async () => {
    const { admin, service } = suite();
    const tracker = await created(admin, '/api/issue/tracker', { title: unique('captured') });
    const categories = await Promise.all([1, 2].map(() => created(admin, '/api/issue/category', { title: unique('category'), tracker_id: tracker.id })));
    const issue = await created(admin, '/api/issue/issue', { title: 'as written', tracker_id: tracker.id, category_ids: [categories[0].id] });
    const argsOf = async (trigger: string, table: string) =>
      ((await service.db.raw(`select obj_description(oid, 'pg_trigger') as args from pg_trigger where tgname = ? and tgrelid = ?::regclass`, [trigger, table])) as { rows: { args: string }[] }).rows[0]!.args;
    const [recordArgs, linkArgs] = [await argsOf('bms_capture', 'issue_issue'), await argsOf('bms_capture_links', 'issue_issue_categories')];
    const writes = async (trx: Knex.Transaction) => {
      await trx.raw(`select set_config('bms.user_id', '1', true)`);
      const make = async (title: string) =>
        ((await trx.raw(`insert into issue_issue (title, tracker_id, description, deadline, created_by) values (?, ?, 'text', '2026-12-24', 1) returning id`, [title, tracker.id])).rows as { id: number }[])[0]!.id;
      const subscription = ((await trx.raw(`insert into webhook_subscriptions (url, events, secret) values ('https://hooks.example/capture', '{issue.issue.created,issue.issue.updated}', 'secret') returning id`)).rows as { id: number }[])[0]!.id;
      const [made, doomed] = [await make('made here'), await make('gone again')];
      await trx.raw(`insert into issue_issue_categories (issue_id, category_id) values (?, ?), (?, ?), (?, ?)`, [made, categories[0].id, made, categories[1].id, doomed, categories[0].id]);
      // made with its links in one statement, as the service creates (the record named for its links' capture, as the
      // write plan names it, unless `named` is false): once kept as made, once changed by a later statement, once
      // changed and changed back
      const withLinks = async (title: string, ids: number[], named = true) =>
        ((await trx.raw(
          `with i as (insert into issue_issue (title, tracker_id, created_by) values (?, ?, 1) returning id${named ? `, set_config('${CREATED_RECORD}', ${createdRecord(`'issue/issue'`, 'id::text')}, true)` : ''}), l as (insert into issue_issue_categories (issue_id, category_id) select i.id, x from i, unnest(?::int[]) x) select id from i`,
          [title, tracker.id, ids],
        )).rows as { id: number }[])[0]!.id;
      const notesMade = async () => ((await trx.raw(`select last_value from audit_link_changes_id_seq`)).rows as { last_value: string }[])[0]!.last_value;
      const setLinks = (id: number, ids: number[]) =>
        trx.raw(`with d as (delete from issue_issue_categories where issue_id = ?) insert into issue_issue_categories (issue_id, category_id) select ?, x from unnest(?::int[]) x`, [id, id, ids]);
      const before = await notesMade();
      const kept = await withLinks('made with links', [categories[0].id, categories[1].id]);
      // a named record's links were noted by none (the generic functions note them and leave them to the flush), and
      // its capture has cleared the name
      const notedAtCreate = (await notesMade()) !== before;
      const nameLeft = ((await trx.raw(`select current_setting('${CREATED_RECORD}', true) as name`)).rows as { name: string | null }[])[0]!.name;
      const unnamed = await withLinks('made with links, not named', [categories[0].id], false);
      // the statement's own capture took the link capture's notes of its links (the generic one leaves them to the flush)
      const notesLeft = ((await trx.raw(`select count(*)::int as n from audit_link_changes where tx = txid_current() and record_id in (?, ?)`, [kept, unnamed])).rows as { n: number }[])[0]!.n;
      await setLinks(await withLinks('links changed after', [categories[0].id]), [categories[1].id]);
      const restored = await withLinks('links changed back', [categories[0].id], false);
      await setLinks(restored, [categories[1].id]);
      await setLinks(restored, [categories[0].id]);
      await trx.raw(`update issue_issue set title = 'rewritten', state = 'pending', archived = true where id = ?`, [issue.id]);
      await trx.raw(`delete from issue_issue_categories where issue_id = ?`, [issue.id]);
      await trx.raw(`delete from issue_issue where id = ?`, [doomed]);
      // the deferred flush runs now, as it would at commit
      await trx.raw('set constraints all immediate');
      const entries = (await trx.raw(`select action, resource, changes, snapshot from audit_entries where tx = txid_current() order by id`)).rows as { snapshot: { id: number } | null }[];
      const deliveries = ((await trx.raw(`select event, data from webhook_deliveries where tx = txid_current() and subscription_id = ? order by id`, [subscription])).rows as { data: { id: number } }[]).map((d) => ({ ...d, data: { ...d.data, id: undefined } }));
      // the new records' ids differ between the runs
      return { entries: entries.map((e) => ({ ...e, snapshot: e.snapshot && { ...e.snapshot, id: undefined } })), deliveries, notesLeft, notedAtCreate, nameLeft };
    };
    const own = await rolledBack(service.db, writes);
    const generic = await rolledBack(service.db, async (trx) => {
      await trx.raw(`create or replace trigger bms_capture after insert or update or delete on issue_issue for each row execute function bms_capture(${recordArgs})`);
      await trx.raw(`create or replace trigger bms_capture_links before insert or delete on issue_issue_categories for each row execute function bms_capture_links(${linkArgs})`);
      await trx.raw(`create or replace function bms_flush_links() returns trigger language plpgsql as $bms$${flushBody([])}$bms$`);
      return writes(trx);
    });
    const both = [categories[0].id, categories[1].id].sort((a, b) => a - b);
    expect(own.entries.map((e: any) => e.action)).to.deep.equal(['create', 'create', 'create', 'create', 'create', 'create', 'update', 'delete']);
    expect(own.entries[0]).to.have.nested.property('changes.category_ids').that.deep.equals(both);
    expect(own.entries[1]).to.not.have.nested.property('changes.category_ids');
    expect(own.entries.slice(2, 6).map((e: any) => e.changes.category_ids)).to.deep.equal([both, [categories[0].id], [categories[1].id], [categories[0].id]]);
    expect(own.entries[6]).to.have.nested.property('changes.category_ids').that.deep.equals([[categories[0].id], []]);
    expect(own.entries[6]).to.have.nested.property('changes.state').that.deep.equals(['new', 'pending']);
    expect(own.deliveries.filter((d: any) => d.event === 'issue.issue.created').map((d: any) => d.data.category_ids)).to.deep.equal([
      both,
      undefined,
      both,
      [categories[0].id],
      [categories[1].id],
      [categories[0].id],
    ]);
    expect([own.notesLeft, generic.notesLeft]).to.deep.equal([0, 2]);
    expect([own.notedAtCreate, generic.notedAtCreate]).to.deep.equal([false, true]);
    expect(own.nameLeft).to.equal('');
    const same = { notesLeft: undefined, notedAtCreate: undefined, nameLeft: undefined };
    expect({ ...own, ...same }).to.deep.equal({ ...generic, ...same });
  });

  it('keeps the functions in step with the declarations: one changed is replaced, one no table calls is dropped', async () => {
    const { db } = suite().service;
    const { resources } = await loadRegistry();
    const own = ownFunction('bms_capture', 'issue_issue');
    const linkOwn = ownFunction('bms_capture_links', 'issue_issue_categories');
    const body = async (name: string) => ((await db.raw('select prosrc from pg_proc where proname = ?', [name])) as { rows: { prosrc: string }[] }).rows[0]!.prosrc;
    const [wanted, wantedLinks, wantedFlush] = [await body(own), await body(linkOwn), await body('bms_flush_links')];
    for (const name of [own, linkOwn, 'bms_flush_links']) await db.raw(`create or replace function ${name}() returns trigger language plpgsql as $$ begin return null; end $$`);
    for (const name of ['bms_capture__gone', 'bms_capture_links__gone']) await db.raw(`create function ${name}() returns trigger language plpgsql as $$ begin return null; end $$`);
    await syncCaptureTriggers(db, resources);
    await syncLinkCaptureTriggers(db, resources);
    expect(await body(own)).to.equal(wanted);
    expect(await body(linkOwn)).to.equal(wantedLinks);
    expect(await body('bms_flush_links')).to.equal(wantedFlush);
    expect(await functionExists(db, 'bms_capture__gone')).to.equal(false);
    expect(await functionExists(db, 'bms_capture_links__gone')).to.equal(false);
  });

  it('a flush that does not know a relation reads its set by a query built for it', async () => {
    const { admin, service } = suite();
    const { resources } = await loadRegistry();
    const tracker = await created(admin, '/api/issue/tracker', { title: unique('unknown side') });
    const category = await created(admin, '/api/issue/category', { title: unique('category'), tracker_id: tracker.id });
    const issue = await created(admin, '/api/issue/issue', { title: 'links only', tracker_id: tracker.id });
    // a flush made before the relation was declared: every side but the issue's categories
    const { rows } = (await service.db.raw(`select prosrc from pg_proc where proname = 'bms_flush_links'`)) as { rows: { prosrc: string }[] };
    const older = rows[0]!.prosrc.replace(/if c\.resource = 'issue\/issue' and c\.name = 'category_ids' then\s+now_ids := [^;]+;\s+els/, '');
    expect(older).to.not.equal(rows[0]!.prosrc);
    await service.db.raw(`create or replace function bms_flush_links() returns trigger language plpgsql as $bms$${older}$bms$`);
    try {
      const res = await admin.patch(`/api/issue/issue/${issue.id}`, { category_ids: [category.id] });
      expect(res.status, res.text).to.equal(200);
    } finally {
      await syncLinkCaptureTriggers(service.db, resources);
    }
    const trail = await admin.get(`/api/audit?resource=issue/issue&record_id=${issue.id}&action=update`);
    expect(trail.status, trail.text).to.equal(200);
    expect(trail.body[0].changes).to.deep.equal({ category_ids: [[], [category.id]] });
  });
});
