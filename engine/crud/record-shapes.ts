/**
 * `?fields=` and `?expand=` on lists and details: a record served with only the keys named, and
 * with the relations named replaced by the related records' own read representation, one level
 * deep. Both become a variant of the resource's select list, so a list stays one query whatever its
 * length: a foreign key expands to a correlated subselect, a many-to-many to a `json_agg` over its
 * join table, each over the target's select list and under the target's visibility rule, so a
 * related record the caller cannot see stays a bare id. Each combination is compiled once.
 */
import type { Principal } from '../auth/users.js';
import { accessPredicate } from '../access/visibility.js';
import { fieldMask, type FieldMask } from '../access/field-permissions.js';
import { emptyMap, ValidationError, type FieldErrors } from '../errors.js';
import type { ForeignKeyRef, ManyToManyRef, Resource } from '../registry/resource.js';
import { ROW, selectParts, type SelectPart } from '../storage/serialise.js';
import { col, frag, q, type Fragment } from '../storage/sql.js';

/** Combinations kept per resource; the names come from requests, so the oldest goes beyond this. */
const MAX_SHAPES = 200;
/** Aliases of the expanded record and of its join-table row; the visibility rules use neither. */
const [TARGET, LINK] = ['ex', 'xj'];

type Relation = ForeignKeyRef | ManyToManyRef;

/** A key of the shaped record: a fixed expression, or an expansion, whose visibility rule depends on the caller. */
type Part = SelectPart | { name: string; expand: (user: Principal) => Fragment };

/** Without the target's view permission the caller sees none of its records: the ids stay. */
const mayView = (user: Principal, target: Resource): boolean => user.isSuperuser || user.permissions.has(target.permissions.view);

/** The keys of a shaped record, compiled once per combination. */
export type Shape = readonly Part[];

/** The select list of `shape`, with `user`'s visibility rules in its expansions. */
export function selectList(shape: Shape, user: Principal): Fragment {
  const built = shape.map((p) => ({ name: p.name, value: 'sql' in p ? frag(p.sql) : p.expand(user) }));
  return frag(built.map((b) => `${b.value.sql} as ${q(b.name)}`).join(', '), built.flatMap((b) => b.value.bindings));
}

/** Comma-separated names, empty ones dropped; undefined when none are given. */
function namesOf(value: string | undefined): string[] | undefined {
  const names = value?.split(',').map((s) => s.trim()).filter(Boolean);
  return names?.length ? names : undefined;
}

/** The related record at row `TARGET` as JSON, or `fallback` (its id) when the caller cannot see it. */
function related(target: Resource, list: string, match: string, fallback: string, user: Principal): Fragment {
  const visible = accessPredicate(target, 'view', user, TARGET);
  const where = visible ? `${match} and ${visible.sql}` : match;
  return frag(`coalesce((select row_to_json(x) from (select ${list} from ${q(target.table)} ${TARGET} where ${where}) x), to_json(${fallback}))`, visible?.bindings);
}

/** The related records are served as their own lists serve them to `user`: without what their field permissions hide. */
function expansion(relation: Relation): (user: Principal) => Fragment {
  const listFor = (user: Principal) => fieldMask(relation.target, user).list(TARGET);
  if (relation.kind === 'fk') {
    const key = col(ROW, relation.column);
    return (user) => related(relation.target, listFor(user), `${TARGET}.id = ${key}`, key, user);
  }
  const { table, sourceColumn, targetColumn } = relation.spec;
  const id = col(LINK, targetColumn);
  return (user) => {
    const one = related(relation.target, listFor(user), `${TARGET}.id = ${id}`, id, user);
    return frag(`coalesce((select json_agg(${one.sql} order by ${id}) from ${q(table)} ${LINK} where ${col(LINK, sourceColumn)} = ${ROW}.id), '[]'::json)`, one.bindings);
  };
}

export class RecordShapes {
  private readonly parts: SelectPart[];
  private readonly relations: Map<string, Relation>;
  private readonly compiled = new Map<string, Shape>();
  /** Fields an engine table serves as the caller's permissions have them (declare/engine-table.ts `servedAs`). */
  private readonly servedAs: Readonly<Record<string, ((user: Principal, alias: string) => string | undefined) | undefined>>;

  constructor(private readonly resource: Resource) {
    this.parts = selectParts(resource);
    this.servedAs = resource.engineTable?.servedAs ?? {};
    this.relations = new Map<string, Relation>([...resource.foreignKeys, ...resource.manyToMany].map((r) => [r.name, r]));
  }

  /** Names `fields=` accepts, in the order a record serves them. */
  get fieldNames(): string[] {
    return this.parts.map((p) => p.name);
  }

  /** Names `expand=` accepts. */
  get expandable(): string[] {
    return [...this.relations.keys()];
  }

  /**
   * The shape `query` asks for, each unknown name added to `errors` under its parameter; undefined
   * for the whole record, which keeps the resource's own select list. What `mask` hides is unknown.
   */
  parse(query: Record<string, string>, errors: FieldErrors, mask: FieldMask): Shape | undefined {
    const fields = namesOf(query.fields);
    const expand = namesOf(query.expand);
    if (!fields && !expand && mask.hidden.size === 0 && Object.keys(this.servedAs).length === 0) return undefined;
    const known = new Set(this.fieldNames.filter((name) => !mask.hidden.has(name)));
    const expandable = (name: string) => this.relations.has(name) && !mask.hidden.has(name);
    for (const name of fields ?? []) if (!known.has(name)) (errors.fields ??= []).push(`Unknown field "${name}".`);
    for (const name of expand ?? []) if (!expandable(name)) (errors.expand ??= []).push(`Cannot expand "${name}".`);
    const kept = new Set(fields ?? known);
    // a relation left out by `fields` has nothing to expand
    const expanded = new Set((expand ?? []).filter((name) => kept.has(name) && expandable(name)));
    return this.shape([...kept].filter((name) => known.has(name)).sort(), [...expanded].sort());
  }

  /** The select list `query` asks for (undefined: the resource's own); unknown names answer 400. */
  selectListOf(query: Record<string, string>, user: Principal): Fragment | undefined {
    const errors: FieldErrors = emptyMap();
    const shape = this.parse(query, errors, fieldMask(this.resource, user));
    if (Object.keys(errors).length) throw new ValidationError(errors);
    return shape && selectList(shape, user);
  }

  private expanded(plain: SelectPart): Part {
    const relation = this.relations.get(plain.name)!;
    const expand = expansion(relation);
    return { name: plain.name, expand: (user) => (mayView(user, relation.target) ? expand(user) : frag(plain.sql)) };
  }

  /** `plain`, or for a field served as the caller's permissions have it, its expression for each caller. */
  private perCaller(plain: SelectPart): Part {
    const served = this.servedAs[plain.name];
    return served ? { name: plain.name, expand: (user) => frag(served(user, ROW) ?? plain.sql) } : plain;
  }

  /** The parts of one combination (names sorted, so one combination is one entry), compiled once. */
  private shape(kept: string[], expanded: string[]): Shape {
    const key = `${kept.join(',')}|${expanded.join(',')}`;
    let parts = this.compiled.get(key);
    if (parts) return parts;
    parts = this.parts.filter((p) => kept.includes(p.name)).map((p) => (expanded.includes(p.name) ? this.expanded(p) : this.perCaller(p)));
    if (this.compiled.size >= MAX_SHAPES) this.compiled.delete(this.compiled.keys().next().value!);
    this.compiled.set(key, parts);
    return parts;
  }
}
