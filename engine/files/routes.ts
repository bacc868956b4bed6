/**
 * The file routes beside each resource with files, under the record's own permissions and
 * visibility (a hidden record's file is 404 like the record; uploading needs change):
 * - a file field `f`: `GET|HEAD|PUT <record>/f`, `GET <record>/f/versions`, `GET …/versions/{n}`,
 *   `POST …/versions/{n}/restore`;
 * - attachments: `GET|POST <record>/attachments`, `GET|HEAD|DELETE <record>/attachments/{id}`.
 * The route table matches one `:id`; these paths carry two, so they are matched here, after the
 * same authentication.
 */
import type { Context, Middleware } from 'koa';
import type { Knex } from 'knex';
import type { Principal } from '../auth/users.js';
import { setActor } from '../audit/actor.js';
import { ApiError, notFound, permissionDenied, ValidationError } from '../errors.js';
import { dropRestOfBody } from '../http/drop-body.js';
import { idOf, mayPerform, methods } from '../http/resource-routes.js';
import type { Action, Resource } from '../registry/resource.js';
import { mapDatabaseError } from '../storage/db-errors.js';
import type { BlobStore } from './blob-store.js';
import { serveFile, type Served } from './download.js';
import { FILE_UPLOADED, lockChangeable, recordFile, removeAttachment, slotsOf, versionsOf, visibleValue, type Slot } from './file-rows.js';
import { incomingFile } from './incoming.js';
import { receive, tooLarge, type Received } from './intake.js';
import { mediaTypeProblem } from './media-type.js';
import { holdFilesLock } from './sweep.js';
import { emitEvent } from '../webhooks/emit.js';

type Handler = (ctx: Context) => Promise<void>;

/** What a multipart body may carry beside the file's bytes (boundaries, part headers, small fields). */
const MULTIPART_OVERHEAD = 1024 * 1024;

const need = (user: Principal, resource: Resource, action: Action) => {
  if (!mayPerform(user, resource.permissions[action])) throw permissionDenied();
};

export class FileRoutes {
  private readonly byPath = new Map<string, Slot[]>();

  constructor(
    private readonly db: Knex,
    private readonly store: BlobStore,
    resources: readonly Resource[],
    private readonly maxBytes: number,
  ) {
    for (const resource of resources) {
      const slots = slotsOf(resource);
      if (slots.length) this.byPath.set(resource.path, slots);
    }
  }

  /** Runs the matching file route after `guard` (authentication); passes other requests on. */
  middleware(guard: Middleware): Middleware {
    return async (ctx, next) => {
      const route = this.find(ctx.path);
      if (!route) return next();
      await guard(ctx, () => route(ctx));
    };
  }

  private find(path: string): Handler | undefined {
    const segments = path.split('/');
    for (let i = segments.length - 2; i >= 3; i--) {
      const slots = this.byPath.get(segments.slice(0, i).join('/'));
      const slot = slots?.find((s) => s.field.name === segments[i + 1]);
      if (slot) return this.route(slot, segments[i]!, segments.slice(i + 2));
    }
    return undefined;
  }

  private route(slot: Slot, rawId: string, tail: string[]): Handler | undefined {
    const as = (handlers: Record<string, (ctx: Context, user: Principal, id: number) => Promise<void>>) => {
      const route = methods(Object.fromEntries(Object.entries(handlers).map(([m, h]) => [m, (ctx: Context, user: Principal) => h(ctx, user, idOf(rawId))])));
      return (ctx: Context) => route(ctx, rawId);
    };
    if (slot.kind === 'file') {
      if (tail.length === 0) return as({ GET: (ctx, user, id) => this.download(ctx, user, slot, id), PUT: (ctx, user, id) => this.upload(ctx, user, slot, id) });
      if (tail[0] !== 'versions') return undefined;
      if (tail.length === 1) return as({ GET: (ctx, user, id) => this.versions(ctx, user, slot, id) });
      if (tail.length === 2) return as({ GET: (ctx, user, id) => this.versions(ctx, user, slot, id, idOf(tail[1])) });
      if (tail.length === 3 && tail[2] === 'restore') return as({ POST: (ctx, user, id) => this.restore(ctx, user, slot, id, idOf(tail[1])) });
      return undefined;
    }
    if (tail.length === 0) return as({ GET: (ctx, user, id) => this.attachments(ctx, user, slot, id), POST: (ctx, user, id) => this.upload(ctx, user, slot, id) });
    if (tail.length === 1) {
      return as({
        GET: (ctx, user, id) => this.download(ctx, user, slot, id, idOf(tail[0])),
        DELETE: (ctx, user, id) => this.detach(ctx, user, slot, id, idOf(tail[0])),
      });
    }
    return undefined;
  }

  /** The record's value of the slot, as `user` may see it; 404 when the record is hidden or missing. */
  private async visible(user: Principal, slot: Slot, id: number, action: Action = 'view'): Promise<unknown> {
    need(user, slot.resource, action);
    const value = await visibleValue(this.db, slot, user, id);
    if (value === undefined) throw notFound();
    return value;
  }

  /** A write of the record `id`, locked under its change rule, recorded as the caller's. */
  private async write<T>(user: Principal, slot: Slot, id: number, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction(async (trx) => {
        await setActor(trx, user);
        await lockChangeable(trx, slot.resource, user, id);
        return work(trx);
      });
    } catch (err) {
      throw mapDatabaseError(err, undefined);
    }
  }

  private async download(ctx: Context, user: Principal, slot: Slot, id: number, attachment?: number): Promise<void> {
    const value = await this.visible(user, slot, id);
    const file = (attachment === undefined ? value : (value as { id: number }[]).find((a) => a.id === attachment)) as Served | null | undefined;
    if (!file) throw notFound();
    await serveFile(ctx, this.store, file);
  }

  private async upload(ctx: Context, user: Principal, slot: Slot, id: number): Promise<void> {
    await this.visible(user, slot, id, 'change');
    const spec = slot.field.spec.type === 'file' ? slot.field.spec : undefined;
    const limit = Math.min(this.maxBytes, spec?.maxBytes ?? Infinity);
    const declared = Number(ctx.get('Content-Length') || 0);
    if (declared > limit + (ctx.is('multipart/form-data') ? MULTIPART_OVERHEAD : 0)) {
      dropRestOfBody(ctx);
      throw tooLarge(limit);
    }
    const incoming = await incomingFile(ctx, slot.field.name);
    let received: Received;
    try {
      received = await receive(incoming.stream, this.store, limit);
    } catch (err) {
      if (err instanceof ApiError && err.status === 413) dropRestOfBody(ctx);
      throw err;
    }
    let named = false;
    try {
      const problem = await mediaTypeProblem(incoming.type, received.head, spec?.types);
      if (problem) throw ValidationError.field(slot.field.name, problem);
      const facts = { name: incoming.name, size: received.size, type: incoming.type, sha256: received.sha256 };
      ctx.body = await this.write(user, slot, id, async (trx) => {
        await holdFilesLock(trx);
        await this.store.promote(received.temp, received.sha256);
        named = true;
        const metadata = await recordFile(trx, slot, id, user, facts);
        await emitEvent(trx, slot.resource, FILE_UPLOADED, [id]);
        return metadata;
      });
      ctx.status = slot.kind === 'file' ? 200 : 201;
    } finally {
      // bytes named but not committed are left to the sweep
      if (!named) await this.store.discard(received.temp);
    }
  }

  private async versions(ctx: Context, user: Principal, slot: Slot, id: number, version?: number): Promise<void> {
    await this.visible(user, slot, id);
    const rows = await versionsOf(this.db, slot, id, version);
    if (version === undefined) ctx.body = rows;
    else if (rows.length) ctx.body = rows[0];
    else throw notFound();
  }

  private async restore(ctx: Context, user: Principal, slot: Slot, id: number, version: number): Promise<void> {
    need(user, slot.resource, 'change');
    ctx.body = await this.write(user, slot, id, async (trx) => {
      const [old] = await versionsOf(trx, slot, id, version);
      if (!old) throw notFound();
      const facts = { name: old.name as string, size: Number(old.size), type: old.type as string, sha256: old.sha256 as string };
      return recordFile(trx, slot, id, user, facts, version);
    });
    ctx.status = 201;
  }

  private async attachments(ctx: Context, user: Principal, slot: Slot, id: number): Promise<void> {
    ctx.body = await this.visible(user, slot, id);
  }

  private async detach(ctx: Context, user: Principal, slot: Slot, id: number, attachment: number): Promise<void> {
    need(user, slot.resource, 'change');
    const removed = await this.write(user, slot, id, (trx) => removeAttachment(trx, slot, id, attachment));
    if (!removed) throw notFound();
    ctx.status = 204;
  }
}
