/**
 * Files in an S3-compatible store (FILE_STORAGE=s3://…): the shared scenarios against a loopback
 * S3 server the test starts, and a file larger than one part, which goes up as a multipart upload.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { expect } from 'chai';
import { createApp } from '../engine/http/app.js';
import { createLogger } from '../engine/log.js';
import { openBlobStore } from '../engine/files/stores.js';
import { receive } from '../engine/files/intake.js';
import type { BlobStore } from '../engine/files/blob-store.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { fileScenarios, sha, type FileTarget } from './support/file-scenarios.js';
import { suite } from './support/hooks.js';
import { startS3Server, type S3Server } from './support/s3-server.js';

describe('files in an S3-compatible store', function () {
  this.timeout(120_000);
  let s3: S3Server;
  let server: http.Server;
  let target: FileTarget;
  let store: BlobStore;

  before(async () => {
    s3 = await startS3Server();
    store = await openBlobStore(
      { storage: `s3://${s3.bucket}/tests/files`, maxBytes: 1024 * 1024, s3Endpoint: s3.endpoint, s3Region: 'us-east-1', s3Credentials: s3.credentials },
      '/nonexistent',
    );
    const maxBytes = 1024 * 1024;
    const app = createApp({ db: suite().service.db, registry: await loadRegistry(), log: createLogger('silent'), files: { store, maxBytes } });
    server = http.createServer(app.koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    target = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, store, maxBytes };
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await s3.close();
  });

  fileScenarios(() => target);

  it('streams a file of several parts up as a multipart upload and reads back the same bytes', async () => {
    const bytes = randomBytes(20 * 1024 * 1024);
    const received = await receive(Readable.from([bytes.subarray(0, 9_000_000), bytes.subarray(9_000_000)]), store, bytes.length);
    expect(received.sha256).to.equal(sha(bytes));
    await store.promote(received.temp, received.sha256);
    const back = await store.read(received.sha256, { start: 8 * 1024 * 1024 - 5, end: 8 * 1024 * 1024 + 4 });
    expect(await text(back)).to.equal(bytes.subarray(8 * 1024 * 1024 - 5, 8 * 1024 * 1024 + 5).toString());
    const entries = [];
    for await (const e of store.list()) entries.push(e);
    expect(entries.filter((e) => e.kind === 'temp')).to.have.length(0);
    await store.remove({ kind: 'blob', sha256: received.sha256, modified: new Date() });
    expect(await store.exists(received.sha256)).to.equal(false);
  });
});
