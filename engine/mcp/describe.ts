/** What describe_resources answers for one resource: enough to call the other tools without guessing. */
import type { ResourceService } from '../crud/service.js';

export function describeResource({ resource, filters, orderable, search }: ResourceService): object {
  const fields = resource.fields
    .filter((f) => f.readable || f.writable)
    .map((f) => {
      const { description, type, required = false } = f.spec;
      const states = f.spec.type === 'state' ? { states: f.spec.values, initial: f.spec.initial, transitions: f.spec.transitions } : {};
      const choices = f.spec.type === 'enum' ? { values: f.spec.values } : {};
      return { name: f.name, type, description, required, nullable: f.nullable, writable: f.writable, ...choices, ...states };
    });
  const relations = [...resource.foreignKeys, ...resource.manyToMany].map((r) => ({
    name: r.name,
    writeName: r.writeName,
    kind: r.kind,
    target: r.target.key,
    description: r.spec.description,
    writable: !r.spec.readOnly,
  }));
  return {
    resource: resource.key,
    path: resource.path,
    title: resource.title,
    description: resource.description,
    fields,
    relations,
    filters: filters.map((f) => ({ name: f.param, description: f.description })),
    search: search.length > 0,
    ordering: [...orderable.keys()],
    defaultOrdering: resource.ordering,
  };
}
