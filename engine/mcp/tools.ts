/**
 * The MCP tools, generated from the registry: their input schemas name the reachable resources as an
 * enum, so an agent cannot ask for one that is out of reach. The writes are offered only when enabled.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ResourceService } from '../crud/service.js';
import { MEASURES } from '../reporting/aggregate-plan.js';

/** The resources an agent may reach: all but those declared `mcp: false`. */
export const reachable = (services: Iterable<ResourceService>): Map<string, ResourceService> =>
  new Map([...services].filter((s) => s.resource.declaration.mcp !== false).map((s) => [s.resource.key, s]));

/** The most records one list_records call returns. */
export const MAX_LIST_LIMIT = 100;

const object = (properties: Record<string, object>, required: string[]): Tool['inputSchema'] => ({ type: 'object', properties, required, additionalProperties: false });

export function toolDefinitions(within: ReadonlyMap<string, ResourceService>, writes: boolean): Tool[] {
  const resource = { type: 'string', enum: [...within.keys()], description: 'Resource key, as describe_resources lists it.' };
  // every resource's filter names; which belong to which, describe_resources says
  const filterNames = [...new Set([...within.values()].flatMap((s) => s.filters.map((f) => f.param)))].sort();
  const id = { type: 'integer', minimum: 1, description: 'Record id.' };
  const filters = { type: 'object', propertyNames: { enum: filterNames }, additionalProperties: { type: 'string' }, description: 'Filter parameter → value, with the names describe_resources lists (e.g. {"status": "active"}).' };
  const search = { type: 'string', description: 'Text searched in the resource\'s search fields.' };
  const values = { type: 'object', description: 'Field values as the REST API takes them (relations by their write name, e.g. `x_id`, `x_ids`).' };
  const read: Tool[] = [
    {
      name: 'describe_resources',
      description: 'The resources within reach: path, fields (types, writability, states and their transitions), list filters, search, ordering and file fields.',
      inputSchema: object({ resource: { ...resource, description: 'Only this resource (default: all).' } }, []),
      annotations: { readOnlyHint: true },
    },
    {
      name: 'list_records',
      description: 'Records of a resource the caller may see, filtered, searched and ordered as the REST list is.',
      inputSchema: object(
        {
          resource,
          filters,
          search,
          ordering: { type: 'string', description: 'Comma-separated orderable fields, `-` for descending (e.g. "-created").' },
          limit: { type: 'integer', minimum: 1, maximum: MAX_LIST_LIMIT, default: 20, description: 'The most records returned.' },
        },
        ['resource'],
      ),
      annotations: { readOnlyHint: true },
    },
    {
      name: 'aggregate_records',
      description: 'Counts and measures of the records list_records would give, by group: the REST aggregate. Groups by the names describe_resources lists as groupable (a date or time by a bucket, e.g. "created:month"); sums, averages, least and greatest of its summable fields, decimals as exact strings.',
      inputSchema: object(
        {
          resource,
          filters,
          search,
          group_by: { type: 'string', description: 'Comma-separated names to group by, e.g. "state,tracker" or "created:quarter" (day, week, month, quarter, year in the server\'s TZ).' },
          count: { type: 'boolean', default: true, description: 'Count the records of each group.' },
          ...Object.fromEntries(MEASURES.map((m) => [m, { type: 'string', description: `Comma-separated summable fields to ${m === 'avg' ? 'average' : m === 'sum' ? 'sum' : `take the ${m === 'min' ? 'least' : 'greatest'} value of`}.` }])),
        },
        ['resource'],
      ),
      annotations: { readOnlyHint: true },
    },
    {
      name: 'get_record',
      description: "One record by id, if the caller may see it. Files show as their metadata (name, size, type, SHA-256, version, url); their bytes are not served over MCP.",
      inputSchema: object({ resource, id }, ['resource', 'id']),
      annotations: { readOnlyHint: true },
    },
    {
      name: 'get_history',
      description: "A record's versions, newest first: each with its time, user, request id and the values after that write (link sets as `x_ids`), as the REST history serves them.",
      inputSchema: object({ resource, id }, ['resource', 'id']),
      annotations: { readOnlyHint: true },
    },
  ];
  if (!writes) return read;
  return [
    ...read,
    { name: 'create_record', description: 'Creates a record, checked as a REST POST is.', inputSchema: object({ resource, values }, ['resource', 'values']) },
    { name: 'update_record', description: 'Changes the given fields of a record, checked as a REST PATCH is.', inputSchema: object({ resource, id, values }, ['resource', 'id', 'values']) },
    {
      name: 'restore_version',
      description: 'Writes a version of a record (get_history lists them) back, checked as a REST PATCH is; the restore is a new version.',
      inputSchema: object({ resource, id, version: { type: 'integer', minimum: 1, description: 'The version, as get_history gives it.' } }, ['resource', 'id', 'version']),
    },
  ];
}
