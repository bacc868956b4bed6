/**
 * A tool call → the same ResourceService calls the REST routes make, for the same principal, with
 * the same model permission checked first; visibility and every write check live in the service.
 * API errors become tool errors carrying the REST status and body.
 */
import { FIELD_MESSAGES } from '../errors.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/users.js';
import type { ResourceService } from '../crud/service.js';
import type { Revisions } from '../history/revisions.js';
import { ApiError, emptyMap, permissionDenied, ValidationError } from '../errors.js';
import { mayPerform } from '../http/resource-routes.js';
import type { Action } from '../registry/resource.js';
import { describeResource } from './describe.js';
import { revealValues } from '../storage/field-encryption.js';
import { viewFor } from '../describe/view.js';
import { fieldMask } from '../access/field-permissions.js';
import { MAX_LIST_LIMIT } from './tools.js';
import { aggregate } from '../reporting/aggregates.js';
import { MEASURES } from '../reporting/aggregate-plan.js';

type Args = Record<string, unknown>;

const text = (body: string, isError = false): CallToolResult => ({ content: [{ type: 'text', text: body }], ...(isError ? { isError } : {}) });
const invalid = (name: string, message: string) => ValidationError.field(name, message);

function argument<T>(args: Args, name: string, holds: (v: unknown) => v is T, message: string): T | undefined {
  const value = args[name];
  if (value === undefined) return undefined;
  if (!holds(value)) throw invalid(name, message);
  return value;
}
function required<T>(args: Args, name: string, holds: (v: unknown) => v is T, message: string): T {
  const value = argument(args, name, holds, message);
  if (value === undefined) throw invalid(name, FIELD_MESSAGES.required);
  return value;
}
const isString = (v: unknown): v is string => typeof v === 'string';
const isObject = (v: unknown): v is Args => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 2147483647;
const isLimit = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_LIST_LIMIT;

export class ToolCalls {
  constructor(
    private readonly services: Map<string, ResourceService>,
    /** MCP_WRITE_ENABLED: create_record, update_record and restore_version run; otherwise they are refused. */
    private readonly writes: boolean,
    /** Each resource's revisions, by key. */
    private readonly histories: ReadonlyMap<string, Revisions>,
  ) {}

  /** The service `args.resource` names, once the caller holds its `action` permission. */
  private service(args: Args, user: Principal, action: Action): ResourceService {
    const key = argument(args, 'resource', isString, 'A resource key is required.');
    const service = key === undefined ? undefined : this.services.get(key);
    if (!service) throw invalid('resource', `Unknown resource "${key ?? ''}"; describe_resources lists them.`);
    if (!mayPerform(user, service.resource.permissions[action])) throw permissionDenied();
    return service;
  }

  private static id(args: Args): number {
    return required(args, 'id', isId, 'A record id is a whole number from 1.');
  }

  private static values(args: Args): Args {
    return required(args, 'values', isObject, 'Expected an object of field values.');
  }

  private describe(args: Args, user: Principal): string {
    const chosen = args.resource === undefined ? [...this.services.values()] : [this.service(args, user, 'view')];
    const seen = chosen.filter((s) => mayPerform(user, s.resource.permissions.view));
    return JSON.stringify(seen.map((s) => describeResource(viewFor(s.view, fieldMask(s.resource, user)))));
  }

  /** The REST query of `args`' filters and search. */
  private static filtered(args: Args, service: ResourceService): Record<string, string> {
    const filters = argument(args, 'filters', isObject, 'Expected an object of filter names and values.') ?? {};
    const known = new Set(service.filters.map((f) => f.param));
    const query = emptyMap<string>();
    for (const [name, value] of Object.entries(filters)) {
      if (!known.has(name)) throw invalid('filters', `Unknown filter "${name}"; describe_resources lists the filters of ${service.resource.key}.`);
      if (typeof value !== 'string') throw invalid('filters', `The value of filter "${name}" must be a string.`);
      query[name] = value;
    }
    const search = argument(args, 'search', isString, 'Expected a string.');
    if (search !== undefined) query.search = search;
    return query;
  }

  private async list(args: Args, user: Principal): Promise<string> {
    const service = this.service(args, user, 'view');
    const query = ToolCalls.filtered(args, service);
    const ordering = argument(args, 'ordering', isString, 'Expected a string.');
    if (ordering !== undefined) query.ordering = ordering;
    query.limit = String(argument(args, 'limit', isLimit, `Expected a whole number from 1 to ${MAX_LIST_LIMIT}.`) ?? 20);
    const texts: string[] = [];
    for await (const record of (await service.list(user, query)).records) texts.push(record);
    return `[${texts.join(',')}]`;
  }

  private async aggregate(args: Args, user: Principal): Promise<string> {
    const service = this.service(args, user, 'view');
    const query = ToolCalls.filtered(args, service);
    for (const name of ['group_by', ...MEASURES]) {
      const value = argument(args, name, isString, 'Expected a string of comma-separated names.');
      if (value !== undefined) query[name] = value;
    }
    const count = argument(args, 'count', (v): v is boolean => typeof v === 'boolean', 'Expected true or false.');
    if (count !== undefined) query.count = String(count);
    return aggregate(service, user, query);
  }

  /** The tool's answer; an API error is the tool's error, anything else is a fault. */
  async call(name: string, args: Args, user: Principal): Promise<CallToolResult> {
    try {
      return text(revealValues(await this.run(name, args, user)));
    } catch (err) {
      if (err instanceof ApiError) return text(JSON.stringify({ status: err.status, error: err.body() }), true);
      throw err;
    }
  }

  private async run(name: string, args: Args, user: Principal): Promise<string> {
    switch (name) {
      case 'describe_resources':
        return this.describe(args, user);
      case 'list_records':
        return this.list(args, user);
      case 'aggregate_records':
        return this.aggregate(args, user);
      case 'get_record':
        return this.service(args, user, 'view').retrieve(user, ToolCalls.id(args));
      case 'get_history':
        return JSON.stringify(await this.histories.get(this.service(args, user, 'view').resource.key)!.list(user, ToolCalls.id(args)));
      case 'create_record':
      case 'update_record':
      case 'restore_version':
        if (!this.writes) throw permissionDenied('Writes through MCP are disabled (MCP_WRITE_ENABLED is not true).');
        return this.write(name, args, user);
      default:
        throw invalid('name', `Unknown tool "${name}".`);
    }
  }

  private async write(name: 'create_record' | 'update_record' | 'restore_version', args: Args, user: Principal): Promise<string> {
    switch (name) {
      case 'create_record':
        return this.service(args, user, 'add').create(user, ToolCalls.values(args));
      case 'update_record':
        return this.service(args, user, 'change').update(user, ToolCalls.id(args), ToolCalls.values(args), true);
      case 'restore_version': {
        const key = this.service(args, user, 'change').resource.key;
        return this.histories.get(key)!.restore(user, ToolCalls.id(args), required(args, 'version', isId, 'A version is a whole number from 1.'));
      }
    }
  }
}
