/** What describe_resources answers for one resource, rendered from its view: enough to call the other tools without guessing. */
import type { ResourceView } from '../describe/view.js';
import { BUCKETS } from '../reporting/aggregate-plan.js';

export function describeResource({ resource, entries, filters, orderable, search, files, groupable, summable }: ResourceView): object {
  const fields = entries.flatMap((e) => {
    if (e.kind !== 'field') return [];
    const { spec } = e;
    const states = spec.type === 'state' ? { states: spec.values, initial: spec.initial, transitions: spec.transitions } : {};
    const choices = spec.type === 'enum' ? { values: spec.values } : {};
    return [{ name: e.name, type: spec.type, description: e.description, required: e.required, nullable: e.nullable, writable: e.writable, ...choices, ...states }];
  });
  const relations = entries.flatMap((e) =>
    e.kind === 'field' ? [] : [{ name: e.name, writeName: e.writeName, kind: e.kind, target: e.target.key, description: e.description, writable: e.writable }],
  );
  return {
    resource: resource.key,
    path: resource.path,
    title: resource.title,
    description: resource.description,
    fields,
    relations,
    filters: filters.map((f) => ({ name: f.param, description: f.description })),
    search: search.length > 0,
    // the records show a file's metadata; its bytes go over HTTP only, never through the tools
    files: files.map((f) => ({
      name: f.name,
      kind: f.spec.type,
      description: f.description,
      bytes: `Not served here: ${f.spec.type === 'file' ? 'GET' : "each attachment's `url`, or GET"} ${resource.path}/{id}/${f.name} over HTTP.`,
    })),
    ordering: orderable,
    defaultOrdering: resource.ordering,
    groupable: groupable.map((g) => ({ name: g.name, ...(g.buckets && { buckets: BUCKETS }) })),
    summable,
  };
}
