/**
 * Swagger UI's "Try it out" on a fresh database: every request example the served OpenAPI document
 * gives is sent, as the document gives it, to a service of its own on an empty database: each
 * resource's create (its parents' examples first: a required reference names the target's first
 * record), then its replace and update of the record made, then the batch actions; the engine's
 * writable tables (webhook subscriptions) too. Every one must succeed (201, 200).
 */
import { expect } from 'chai';
import { createLogger } from '../engine/log.js';
import { startService, type RunningService } from '../engine/service.js';
import { createToken } from '../engine/auth/tokens.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { parentsFirst } from '../engine/cli/seed.js';
import type { Document } from '../engine/openapi/types.js';
import { Client } from './support/client.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { testConfig } from './support/hooks.js';

interface MediaType {
  schema: { $ref: string };
  example?: unknown;
}
type Operation = { requestBody: { content: Record<string, MediaType> } };

/**
 * What Swagger UI sends for an operation's body: the media type's example, else one built from the
 * request schema's property examples (a resource's body gives the former; an engine table's and a
 * batch action's the latter).
 */
function sent(doc: Document, path: string, method: string): unknown {
  const media = (doc.paths[path] as Record<string, Operation>)[method]!.requestBody.content['application/json']!;
  if (media.example !== undefined) return media.example;
  const schema = doc.components.schemas[media.schema.$ref.split('/').at(-1)!] as { properties: Record<string, { example?: unknown }> };
  return Object.fromEntries(Object.entries(schema.properties).filter(([, p]) => 'example' in p).map(([key, p]) => [key, p.example]));
}

const registry = await loadRegistry();

describe('the OpenAPI request examples, sent to a fresh database ("Try it out")', function () {
  this.timeout(300_000);
  let db: TestDatabase;
  let service: RunningService;
  let client: Client;
  let doc: Document;

  before(async () => {
    db = await createTestDatabase();
    service = await startService(testConfig(db, { webhooks: { dispatch: false }, jobs: { run: false } }), createLogger('silent'), { quiet: true });
    const admin = (await service.db('users').where({ username: 'admin' }).first('id')) as { id: number };
    client = new Client(service.url, (await createToken(service.db, admin.id, 'examples')).key);
    doc = (await client.get('/api/schema/?format=json')).body as Document;
  });
  after(async () => {
    await service?.close();
    await db?.drop();
  });

  it('creates, replaces and updates a record of every resource with its examples', async () => {
    const failures: string[] = [];
    const writable = [...registry.resources, ...registry.tables].filter((r) => r.actions.includes('add'));
    for (const resource of parentsFirst(writable)) {
      const example = sent(doc, resource.path, 'post');
      const created = await client.post(resource.path, example);
      if (created.status !== 201) {
        failures.push(`POST ${resource.path} ${created.status} ${created.text}`);
        continue;
      }
      const item = `${resource.path}/{id}`;
      for (const method of ['put', 'patch'] as const) {
        const res = await client[method](`${resource.path}/${created.body.id}`, sent(doc, item, method));
        if (res.status !== 200) failures.push(`${method.toUpperCase()} ${item} ${res.status} ${res.text}`);
      }
    }
    expect(failures).to.deep.equal([]);
  });

  it('runs every batch action with its example', async () => {
    const failures: string[] = [];
    // the delete last: the others act on the records it removes
    const batches = [...registry.batches].sort((a, b) => Number(a.path.endsWith('delete')) - Number(b.path.endsWith('delete')));
    expect(batches).to.not.be.empty;
    for (const batch of batches) {
      const res = await client.post(batch.path, sent(doc, batch.path, 'post'));
      if (res.status !== 200) failures.push(`POST ${batch.path} ${res.status} ${res.text}`);
    }
    expect(failures).to.deep.equal([]);
  });
});
