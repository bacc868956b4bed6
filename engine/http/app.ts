/**
 * The Koa application: request log → error rendering → path conventions → health → public
 * endpoints → authentication → routes → 404. Everything is built once from the registry.
 */
import Koa from 'koa';
import Router from '@koa/router';
import type { Knex } from 'knex';
import { createAjv } from '../crud/validator.js';
import { ResourceService } from '../crud/service.js';
import { notFound } from '../errors.js';
import type { Logger } from '../log.js';
import type { Registry } from '../registry/registry.js';
import { authenticate, type PublicPath } from './authenticate.js';
import { mountHealth } from './health.js';
import { redirectDeprecated, stripTrailingSlash } from './paths.js';
import { renderErrors } from './render-errors.js';
import { requestLog } from './request-log.js';
import { mountResource } from './resource-routes.js';

export interface Services {
  db: Knex;
  registry: Registry;
  log: Logger;
}

export interface App {
  koa: Koa;
  services: Map<string, ResourceService>;
}

export function createApp({ db, registry, log }: Services): App {
  const koa = new Koa({ proxy: false });
  koa.silent = true;
  const ajv = createAjv();
  const services = new Map(registry.resources.map((r) => [r.key, new ResourceService(r, db, ajv, registry.permissionNames)]));

  const publicRouter = new Router();
  mountHealth(publicRouter, db);
  const publicPaths: PublicPath[] = [];

  const router = new Router();
  for (const service of services.values()) mountResource(router, service);

  koa.use(requestLog(log));
  koa.use(renderErrors);
  koa.use(redirectDeprecated);
  koa.use(stripTrailingSlash);
  koa.use(publicRouter.routes());
  koa.use(authenticate(db, publicPaths));
  koa.use(router.routes());
  koa.use(async (ctx) => {
    if (ctx.body === undefined && ctx.status === 404) throw notFound();
  });
  return { koa, services };
}
