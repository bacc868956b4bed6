/** Files on local disk (FILE_STORAGE unset): the shared scenarios against a service whose FILE_MAX_BYTES is 1 MiB. */
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createApp } from '../engine/http/app.js';
import { createLogger } from '../engine/log.js';
import { LocalStore } from '../engine/files/local-store.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { fileScenarios, type FileTarget } from './support/file-scenarios.js';
import { suite } from './support/hooks.js';

describe('files on local disk', function () {
  this.timeout(60_000);
  let server: http.Server;
  let target: FileTarget;

  before(async () => {
    const store = new LocalStore(path.join(suite().database.dataDir, 'files-local-test'));
    const maxBytes = 1024 * 1024;
    const app = createApp({ db: suite().service.db, registry: await loadRegistry(), log: createLogger('silent'), files: { store, maxBytes } });
    server = http.createServer(app.koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    target = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, store, maxBytes };
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  fileScenarios(() => target);
});
