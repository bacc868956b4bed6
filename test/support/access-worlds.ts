/**
 * Builds the records of a world of an access model through the API (as the superuser): the records
 * `via` keys point at and `among` links hold first, then the record, then the records that refer
 * to it. Only `created_by` and read-only fields are set in the database, as the API never takes them.
 */
import type { Knex } from 'knex';
import { findField, findForeignKey, findManyToMany, type Resource } from '../../engine/registry/resource.js';
import type { Client } from './client.js';
import { unique, type TestUser } from './fixtures.js';
import type { RecordNode, Var, Who, World } from './access-model.js';
import type { Samples } from './samples.js';

type Body = Record<string, unknown>;

export class WorldBuilder {
  private readonly groups = new Map<Who, Promise<number>>();

  constructor(
    private readonly admin: Client,
    private readonly db: Knex,
    private readonly samples: Samples,
    private readonly users: Partial<Record<Who, TestUser>>,
    private readonly adminId: number,
  ) {}

  /** Creates the record of `node` (and what it reads) as `world` says; `given` are extra body values. */
  async build(node: RecordNode, world: World, given: Body = {}): Promise<Record<string, any>> {
    const { resource } = node;
    const body: Body = {};
    const direct: Body = {};
    for (const link of node.links) {
      if (link.kind === 'via' && world.get(`${node.path}|unset|${link.fk.name}`) !== true) body[link.fk.writeName] = (await this.build(link.node, world)).id;
      if (link.kind === 'among') body[link.m2m.writeName] = [...((body[link.m2m.writeName] as number[] | undefined) ?? []), (await this.build(link.node, world)).id];
    }
    if (resource.access.inherit) body[resource.access.inherit.when] = false;
    for (const v of node.vars) await this.set(resource, v, world.get(v.key), body, direct);
    Object.assign(body, given);
    const res = await this.admin.post(resource.path, await this.samples.body(resource, { values: body }));
    if (res.status !== 201) throw new Error(`POST ${resource.path}: ${res.status} ${res.text}`);
    if (Object.keys(direct).length) await this.db(resource.table).where({ id: res.body.id }).update(direct);
    for (const link of node.links) if (link.kind === 'referencedBy') await this.build(link.node, world, { [link.fk.writeName]: res.body.id });
    return res.body;
  }

  private async set(resource: Resource, v: Var, value: unknown, body: Body, direct: Body): Promise<void> {
    const id = (who: unknown) => this.users[who as Who]!.id;
    switch (v.kind) {
      case 'field': {
        const f = findField(resource, v.name)!;
        if (f.writable) body[v.name] = value;
        else direct[f.column!] = value;
        return;
      }
      case 'unset':
        if (value === true) body[findForeignKey(resource, v.name)?.writeName ?? v.name] = null;
        return;
      case 'current': {
        const time = findField(resource, v.start)!.spec.type === 'datetime' ? 'T00:00:00.000Z' : '';
        [body[v.start], body[v.end]] = [`2000-01-01${time}`, `${value ? '2999-12-31' : '2000-01-02'}${time}`];
        return;
      }
      case 'user': {
        if (v.name === 'created_by') {
          if (value !== 'none') direct.created_by = id(value);
          return;
        }
        const fk = findForeignKey(resource, v.name)!;
        body[fk.writeName] = value === 'none' ? (fk.required ? this.adminId : null) : id(value);
        return;
      }
      case 'users':
        body[findManyToMany(resource, v.name)!.writeName] = (value as Who[]).map(id);
        return;
      case 'groups':
        body[findManyToMany(resource, v.name)!.writeName] = await Promise.all((value as Who[]).map((who) => this.groupOf(who)));
    }
  }

  /** A group holding only `who`. */
  private groupOf(who: Who): Promise<number> {
    let group = this.groups.get(who);
    if (!group) {
      group = this.admin.post('/api/customgroup', { name: unique(`team-${who}`), user_ids: [this.users[who]!.id] }).then((r) => {
        if (r.status !== 201) throw new Error(`group: ${r.status} ${r.text}`);
        return r.body.id as number;
      });
      this.groups.set(who, group);
    }
    return group;
  }
}
