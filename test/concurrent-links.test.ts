/**
 * A write of a link list replaces the set atomically: two clients sending different sets at the
 * same moment leave one of the two sets (the last writer's), never a merge of both. Each pair of
 * write paths races in many rounds over real connections: the one-statement PATCH and PUT, the
 * transaction path (`If-Match`), MCP's update_record, and a batch action on the same record.
 */
import { expect } from 'chai';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createLogger } from '../engine/log.js';
import { startService, type RunningService } from '../engine/service.js';
import { created, unique } from './support/fixtures.js';
import { describeWithServer } from './support/database.js';
import { suite, testConfig } from './support/hooks.js';

const ROUNDS = 30;

/** One write of `ids` as the link list, answering the set its 200 shows. */
type Writer = (path: string, ids: number[]) => Promise<number[]>;

const sorted = (ids: readonly number[]): number[] => [...ids].sort((a, b) => a - b);

describeWithServer('concurrent writes of a link list', 'a single PGlite connection runs one statement at a time', () => {
  let categories: number[];
  let issue: string;

  before(async () => {
    const { admin } = suite();
    const tracker = await created(admin, '/api/issue/tracker', { title: unique('race') });
    categories = [];
    for (let i = 0; i < 3; i++) categories.push((await created(admin, '/api/issue/category', { title: unique('c'), tracker_id: tracker.id })).id);
    issue = `/api/issue/issue/${(await created(admin, '/api/issue/issue', { title: unique('race'), tracker_id: tracker.id, category_ids: [categories[0]] })).id}`;
  });

  const rest = (headers: Record<string, string> = {}, method: 'patch' | 'put' = 'patch'): Writer => async (path, ids) => {
    const { admin } = suite();
    // a PUT sends its GET body, with the link list under its write name
    const body: Record<string, unknown> = method === 'put' ? (await admin.get(path)).body : {};
    delete body.categories;
    body.category_ids = ids;
    const res = await admin[method](path, body, { headers });
    expect(res.status, res.text).to.equal(200);
    return res.body.categories as number[];
  };

  /** Races `a` (sending [c1]) against `b` (sending [c0, c2]) from [c0]: the stored set is one of the two, and each client saw its own. */
  async function race(a: Writer, b: Writer, path = issue): Promise<void> {
    const [c0, c1, c2] = categories as [number, number, number];
    const outcomes = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      await rest()(path, [c0]);
      const [seenA, seenB] = await Promise.all([a(path, [c1]), b(path, [c0, c2])]);
      expect(sorted(seenA)).to.deep.equal([c1]);
      expect(sorted(seenB)).to.deep.equal(sorted([c0, c2]));
      const stored = sorted((await suite().admin.get(path)).body.categories as number[]);
      expect([[c1], sorted([c0, c2])], `round ${round}: stored ${JSON.stringify(stored)}`).to.deep.include(stored);
      outcomes.add(JSON.stringify(stored));
    }
  }

  it('two one-statement PATCHes', async () => race(rest(), rest()));

  it('a PUT against a PATCH', async () => race(rest({}, 'put'), rest()));

  it('a PATCH against a PATCH with If-Match (the transaction path)', async () => race(rest(), rest({ 'If-Match': '*' })));

  describe('through MCP', () => {
    let mcpService: RunningService;
    let mcp: McpClient;

    before(async function () {
      this.timeout(60_000);
      mcpService = await startService(testConfig(suite().database, { mcpWriteEnabled: true, webhooks: { dispatch: false } }), createLogger('silent'), { quiet: true });
      mcp = new McpClient({ name: 'bms-api-tests', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp', mcpService.url), { requestInit: { headers: { Authorization: `Token ${suite().admin.token!}` } } }));
    });

    after(async () => {
      await mcp?.close();
      await mcpService?.close();
    });

    const viaMcp: Writer = async (path, ids) => {
      const result = (await mcp.callTool({ name: 'update_record', arguments: { resource: 'issue/issue', id: Number(path.split('/').pop()), values: { category_ids: ids } } })) as CallToolResult;
      const [content] = result.content;
      if (content?.type !== 'text' || result.isError) throw new Error(`update_record: ${JSON.stringify(result)}`);
      return (JSON.parse(content.text) as { categories: number[] }).categories;
    };

    it('an MCP update_record against a REST PATCH', async () => race(viaMcp, rest()));
  });

  it('a batch action on the record leaves the link list one of the sets sent', async () => {
    const { admin } = suite();
    const folder = async () => (await created(admin, '/api/dms/folder', { title: unique('f') })).id as number;
    const [f1, f2] = [await folder(), await folder()];
    const processes: number[] = [];
    for (let i = 0; i < 3; i++) processes.push((await created(admin, '/api/process/process', { title: unique('p') })).id);
    const document = await created(admin, '/api/dms/document', { title: unique('d'), folder_id: f1, process_ids: [processes[0]] });
    const path = `/api/dms/document/${document.id}`;
    for (let round = 0; round < ROUNDS; round++) {
      await admin.patch(path, { process_ids: [processes[0]] });
      const target = round % 2 ? f1 : f2;
      const [moved, patched, second] = await Promise.all([
        admin.post('/api/dms/batch_move', { document_ids: [document.id], folder_id: target }),
        admin.patch(path, { process_ids: [processes[1]] }),
        admin.patch(path, { process_ids: [processes[0], processes[2]] }),
      ]);
      expect([moved.status, patched.status, second.status], moved.text + patched.text + second.text).to.deep.equal([200, 200, 200]);
      const stored = (await admin.get(path)).body;
      expect([[processes[1]], sorted([processes[0]!, processes[2]!])]).to.deep.include(sorted(stored.processes as number[]));
      expect(stored.folder).to.equal(target);
    }
  });
});
