/**
 * The employee's AHV number and IBAN (issue 24): checked by their check digits, typed with spaces
 * or dots and stored in one form, encrypted at rest with AES-256-GCM under FIELD_ENCRYPTION_KEY,
 * served in plain text; the start refuses a missing or malformed key where one is needed, the
 * embedded database makes its own; a key rotation re-encrypts every value.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { readConfig, readDatabaseConfig } from '../engine/config.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { StartupError } from '../engine/startup-error.js';
import { encryptValue, revealValues, useFieldKeys } from '../engine/storage/field-encryption.js';
import { KEY_FILE, rotateFieldKeys, setUpFieldKeys } from '../engine/storage/field-keys.js';
import { TEST_FIELD_KEY } from './support/database.js';
import { created } from './support/fixtures.js';
import { suite } from './support/hooks.js';

const PATH = '/api/organisation/mitarbeitende';
const AHV = '756.9217.0769.85';
const IBAN = 'CH9300762011623852957';
const NEW_KEY = 'b2'.repeat(32);

const registry = await loadRegistry();

describe('encrypted fields (AHV number, IBAN)', function () {
  this.timeout(60_000);
  const stored = async (id: number) => (await suite().service.db('organisation_mitarbeitende').where({ id }).first('ahv_number', 'iban')) as { ahv_number: string; iban: string };

  it('normalises what people type to one stored form, and refuses wrong check digits', async () => {
    const { admin } = suite();
    const made = await created(admin, PATH, { vorname: 'Anna', nachname: 'Keller', ahv_number: '756 9217 0769 85', iban: 'ch93 0076 2011 6238 5295 7' });
    expect(made).to.include({ ahv_number: AHV, iban: IBAN });
    const dotted = await admin.patch(`${PATH}/${made.id}`, { ahv_number: '7569217076985' });
    expect(dotted.body.ahv_number).to.equal(AHV);
    const bad = await admin.post(PATH, { vorname: 'B', nachname: 'C', ahv_number: '756.9217.0769.84', iban: 'CH9400762011623852957' });
    expect(bad.status).to.equal(400);
    expect(bad.body).to.deep.equal({
      ahv_number: ['Enter a valid AHV number: 756.XXXX.XXXX.XX with its check digit.'],
      iban: ['Enter a valid IBAN (country code, check digits and account; spaces allowed).'],
    });
    const shape = await admin.post(PATH, { vorname: 'B', nachname: 'C', ahv_number: '123.4567.8901.23', nationalities: ['CH', 'XX'] });
    expect(Object.keys(shape.body).sort()).to.deep.equal(['ahv_number', 'nationalities']);
  });

  it('stores the values encrypted and serves them in plain text (detail, list, ETag of the stored form)', async () => {
    const { admin } = suite();
    const made = await created(admin, PATH, { vorname: 'Ben', nachname: 'Meier', ahv_number: AHV, iban: IBAN });
    const row = await stored(made.id);
    for (const value of Object.values(row)) {
      expect(value).to.match(/^enc:v1:[0-9a-f]{8}:[A-Za-z0-9_-]+$/);
      expect(value).not.to.contain('9217');
    }
    expect((await admin.get(`${PATH}/${made.id}`)).body).to.include({ ahv_number: AHV, iban: IBAN });
    expect((await admin.get(`${PATH}?uuid=${made.uuid}`)).body[0]).to.include({ ahv_number: AHV, iban: IBAN });
    // encrypted fields offer no filter: equal values encrypt differently
    expect([...suite().service.app.services.get('organisation/mitarbeitende')!.filters].map((f) => f.on.key)).not.to.include.members(['ahv_number', 'iban']);
    const detail = await admin.get(`${PATH}/${made.id}`);
    const put = await admin.put(`${PATH}/${made.id}`, detail.body, { headers: { 'If-Match': detail.headers.get('ETag')! } });
    expect(put.status, put.text).to.equal(200);
    expect(put.body).to.include({ ahv_number: AHV, iban: IBAN });
  });

  it('reveals a token wherever it stands in a text, among look-alikes, and leaves texts without one as they are', () => {
    useFieldKeys(TEST_FIELD_KEY);
    const token = JSON.stringify(encryptValue(IBAN));
    const decoys = '"v1:", "env1:", "enc:v1", "nc:v1:", "ENC:v1:x"';
    expect(revealValues(token)).to.equal(JSON.stringify(IBAN));
    expect(revealValues(`[${decoys}, ${token}, {"a":${token}}]`)).to.equal(`[${decoys}, "${IBAN}", {"a":"${IBAN}"}]`);
    const none = `[${decoys}, "enc:v2:00000000:abc", "v1:"]`;
    expect(revealValues(none)).to.equal(none);
  });

  describe('key rotation', () => {
    // the run's database is shared: every value goes back under the tests' key, which the services
    // other test files start know alone
    after(async () => {
      useFieldKeys(TEST_FIELD_KEY, [NEW_KEY]);
      await rotateFieldKeys(suite().service.db, registry.resources);
    });

    it('reads values under a previous key, re-encrypts them all with the new one, then needs the old one no more', async () => {
      const { admin, service } = suite();
      const made = await created(admin, PATH, { vorname: 'Cem', nachname: 'Huber', ahv_number: AHV, iban: IBAN });
      const before = await stored(made.id);
      useFieldKeys(NEW_KEY, [TEST_FIELD_KEY]);
      expect((await admin.get(`${PATH}/${made.id}`)).body).to.include({ ahv_number: AHV, iban: IBAN });
      const entries = async () => Number(((await service.db('audit_entries').where({ record_id: made.id, resource: 'organisation/mitarbeitende' }).count('* as n')) as { n: string }[])[0]!.n);
      const recorded = await entries();
      expect(await rotateFieldKeys(service.db, registry.resources)).to.be.greaterThan(1);
      expect(await entries(), 'no audit entry: the values did not change').to.equal(recorded);
      const after = await stored(made.id);
      expect(after.ahv_number).not.to.equal(before.ahv_number);
      expect(await rotateFieldKeys(service.db, registry.resources)).to.equal(0);
      useFieldKeys(NEW_KEY);
      expect((await admin.get(`${PATH}/${made.id}`)).body).to.include({ ahv_number: AHV, iban: IBAN });
      // a value no key opens stops the rotation and names where it is
      useFieldKeys(TEST_FIELD_KEY);
      let refused: unknown;
      await rotateFieldKeys(service.db, registry.resources).catch((err: unknown) => (refused = err));
      expect(String(refused)).to.contain('FIELD_ENCRYPTION_PREVIOUS_KEYS');
    });
  });

  describe('the key at start', () => {
    const quiet = () => undefined;

    it('refuses a malformed key without showing it', () => {
      expect(() => readDatabaseConfig({ FIELD_ENCRYPTION_KEY: 'abc123', DATABASE_URL: 'postgres://h/db' })).to.throw(StartupError, 'FIELD_ENCRYPTION_KEY (not shown): expected 64 hexadecimal characters');
      expect(() => readConfig({ FIELD_ENCRYPTION_PREVIOUS_KEYS: `${NEW_KEY},zz`, DATABASE_URL: 'postgres://h/db' })).to.throw(StartupError, 'FIELD_ENCRYPTION_PREVIOUS_KEYS (not shown)');
    });

    it('refuses to start on a PostgreSQL server without a key', () => {
      const config = readDatabaseConfig({ DATABASE_URL: 'postgres://h/db' });
      expect(() => setUpFieldKeys(config, registry.resources, quiet)).to.throw(StartupError, 'FIELD_ENCRYPTION_KEY is not set');
    });

    it('makes the embedded database a key of its own on its first start, says so, and keeps it', () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-keys-'));
      try {
        const said: string[] = [];
        setUpFieldKeys({ databaseUrl: undefined, dataDir }, registry.resources, (m) => said.push(m));
        const key = fs.readFileSync(path.join(dataDir, KEY_FILE), 'utf8').trim();
        expect(key).to.match(/^[0-9a-f]{64}$/);
        expect(said).to.have.length(1);
        expect(said[0]).to.contain(path.join(dataDir, KEY_FILE));
        setUpFieldKeys({ databaseUrl: undefined, dataDir }, registry.resources, (m) => said.push(m));
        expect(said).to.have.length(1);
        expect(fs.readFileSync(path.join(dataDir, KEY_FILE), 'utf8').trim()).to.equal(key);
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
        useFieldKeys(TEST_FIELD_KEY);
      }
    });
  });
});
