/**
 * Query parameters of a list operation: the service's own filters (the list it parses), then
 * `search`, `ordering` (CONTRACT 9) and the paging parameters `limit`, `offset`, `cursor` and
 * `count`. Each filter's description adds the description of the field or relation it filters on.
 */
import type { ResourceService } from '../crud/service.js';
import type { Filter } from '../crud/filters.js';
import { SEARCH_LIMITS } from '../crud/list-plan.js';
import type { ViewEntry } from '../describe/view.js';
import type { Resource } from '../registry/resource.js';
import { ref, type Parameter, type Ref } from './types.js';

function filterParameter(entries: ReadonlyMap<string, ViewEntry>, f: Filter): Parameter {
  // the declared description of what the filter filters on, if it is a field or relation
  const subject = entries.get(f.on.key)?.description;
  return {
    name: f.param,
    in: 'query',
    description: subject ? `${f.description} ${subject}` : f.description,
    ...(f.schema.type === 'array' ? { style: 'form', explode: false } : {}),
    schema: { ...f.schema },
  };
}

/** `limit`: the shared one, or the declared page's (an engine table's). */
function limitParameter(resource: Resource): Parameter | Ref {
  const page = resource.engineTable?.page;
  if (!page) return ref('parameters', 'Limit');
  return {
    name: 'limit',
    in: 'query',
    description: `At most this many records (default ${page.size}, at most ${page.max}); \`Link\` (\`rel="next"\`) points to the next page.`,
    schema: { type: 'integer', minimum: 1, maximum: page.max },
  };
}

export function listParameters({ view }: ResourceService): (Parameter | Ref)[] {
  const { resource } = view;
  const entries = new Map(view.entries.map((e) => [e.name, e]));
  const params: (Parameter | Ref)[] = view.filters.map((f) => filterParameter(entries, f));
  const searchable = view.search.map((f) => `\`${f.name}\``);
  if (searchable.length) {
    params.push({
      name: 'search',
      in: 'query',
      description: `Words that must each appear (case-insensitively) in one of ${searchable.join(', ')}; at most ${SEARCH_LIMITS.words} words of at most ${SEARCH_LIMITS.wordLength} characters.`,
      schema: { type: 'string' },
    });
  }
  const { orderable } = view;
  const byDefault = resource.ordering.length ? resource.ordering.join(',') : 'id';
  params.push(
    {
      name: 'ordering',
      in: 'query',
      description: `Fields to order by, comma-separated, \`-\` for descending (e.g. \`-created,id\`); ties are broken by id. Default \`${byDefault}\`.`,
      style: 'form',
      explode: false,
      schema: { type: 'array', items: { type: 'string', enum: orderable.flatMap((n) => [n, `-${n}`]) } },
    },
    limitParameter(resource),
    ref('parameters', 'Offset'),
    ref('parameters', 'Cursor'),
    ref('parameters', 'Count'),
  );
  return params;
}

/** `fields` and `expand`, on lists and details: the names each accepts. */
export function shapeParameters(service: ResourceService): Parameter[] {
  const { fieldNames, expandable } = service.shapes;
  const names = (values: string[]) => ({ type: 'array', items: { type: 'string', enum: values } });
  const params: Parameter[] = [
    {
      name: 'fields',
      in: 'query',
      description: 'Keys to serve, comma-separated (e.g. `id,title`): each record has only these, in its usual order. An unknown name answers 400 under `fields`.',
      style: 'form',
      explode: false,
      schema: names(fieldNames),
    },
  ];
  if (expandable.length) {
    params.push({
      name: 'expand',
      in: 'query',
      description:
        'Relations to serve as the related records, comma-separated (e.g. `tracker,categories`): a key becomes the record its own detail serves (the schema named by `x-expand` on the relation), a link list the list of them; one level deep. A related record the caller cannot see, or whose resource they may not view, stays its id. With `fields`, only kept relations expand. An unknown name answers 400 under `expand`.',
      style: 'form',
      explode: false,
      schema: names(expandable),
    });
  }
  return params;
}
