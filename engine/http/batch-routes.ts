/**
 * Routes of the batch actions (CONTRACT 10): `POST` only, other methods 405 with `Allow`. The
 * batch's model permission is checked before the body is read, as for every resource route.
 */
import { BatchService } from '../crud/batch.js';
import type { ResourceService } from '../crud/service.js';
import { permissionDenied } from '../errors.js';
import type { Batch } from '../registry/resource.js';
import type { IdempotentPosts } from './idempotency.js';
import { mayPerform, methods } from './resource-routes.js';
import type { RouteTable } from './route-table.js';

/** Mounts `batch`, whose records are written through `records`, the service of its resource. */
export function mountBatch(routes: RouteTable, batch: Batch, records: ResourceService, idempotent: IdempotentPosts): void {
  const service = new BatchService(batch, records);
  routes.add(
    batch.path,
    methods({
      POST: async (ctx, user) => {
        if (!mayPerform(user, batch.permission)) throw permissionDenied();
        await idempotent.run(ctx, user, async (body, writer) => {
          ctx.body = await service.run(writer, body);
        });
      },
    }),
  );
}
