/** Turns declarations into linked resources and checks them, naming the resource and the fix. */
import type { FieldSpec, ResourceDeclaration, RelationSpec, BatchDeclaration } from '../declare/index.js';
import { writesAll, type EngineTableDeclaration } from '../declare/engine-table.js';
import {
  ACTIONS,
  type Batch,
  RECORD_COLUMNS,
  RECORD_FIELDS,
  type Field,
  type ForeignKeyRef,
  type ManyToManyRef,
  type Resource,
  findField,
  findForeignKey,
  PRINCIPALS,
} from './resource.js';
import { checkAccess, checkAccessCycles } from './access-check.js';
import { canHoldRights } from '../access/privileges.js';
import { typeOf } from '../fields/index.js';
import { MAX_LIST_ITEMS } from '../fields/values.js';
import { STATEMENT_PARTS } from '../write/parts.js';

/** The field `attachments: true` gives a resource. */
export const ATTACHMENTS = 'attachments';

class DeclarationError extends Error {
  constructor(resource: string, message: string) {
    super(`Resource "${resource}": ${message}`);
  }
}


function keyOf(d: ResourceDeclaration): string {
  return (d.path ?? `/api/${d.module}/${d.name}`).replace(/^\/api\//, '');
}

/** The table a resource declares none for: `<module>_<name>`, hyphens as underscores (`tutorial_lesson_progress`). */
export function tableByConvention(d: Pick<ResourceDeclaration, 'module' | 'name'>): string {
  return `${d.module}_${d.name}`.replace(/-/g, '_');
}

function compileField(spec: FieldSpec, name: string, column = name): Field {
  const derived = spec.type === 'enum' && spec.derived !== undefined;
  const hasDefault = 'default' in spec && spec.default !== undefined;
  const type = typeOf(spec);
  const readable = type.read(spec, name) !== null;
  return {
    name,
    spec,
    column: derived ? null : column,
    nullable: spec.nullable ?? (!spec.required && !hasDefault && spec.type !== 'permissions'),
    writable: !spec.readOnly && !derived,
    readable,
    recorded: readable && !spec.bookkeeping,
    filterable: spec.filter ?? (type.filteredByDefault || derived),
    orderable: spec.orderable ?? (type.orderable && !derived),
  };
}

function compileOne(d: ResourceDeclaration, table?: EngineTableDeclaration): Resource {
  const key = keyOf(d);
  const modelName = d.permission?.model ?? d.name.replace(/[-_]/g, '');
  const app = d.permission?.app ?? d.module;
  const columns: Readonly<Record<string, string | undefined>> = table?.columns ?? {};
  // a read-only table's fields are all read-only
  const fields = Object.entries(d.fields).map(([name, spec]) => compileField(table && !(table.writes && writesAll(table.writes)) ? { ...spec, readOnly: true } : spec, name, columns[name]));
  if (d.attachments) {
    if (fields.some((f) => f.name === ATTACHMENTS)) throw new DeclarationError(key, `field "${ATTACHMENTS}" is added by \`attachments: true\`; rename it.`);
    fields.push(compileField({ type: 'attachments', readOnly: true, nullable: false, description: 'Files attached to the record (upload at `…/attachments`).' }, ATTACHMENTS));
  }
  for (const f of fields) {
    if ((RECORD_FIELDS as readonly string[]).includes(f.name)) throw new DeclarationError(key, `field "${f.name}" is added by the engine; remove it.`);
    // a client's write is a change, so only what clients cannot write may be bookkeeping
    if (f.spec.bookkeeping && f.writable) throw new DeclarationError(key, `bookkeeping field "${f.name}" must be readOnly.`);
  }
  return {
    key,
    path: d.path ?? `/api/${d.module}/${d.name}`,
    module: d.module,
    name: d.name,
    table: d.table ?? tableByConvention(d),
    title: d.title,
    description: d.description,
    operationPrefix: key.replace(/[/-]/g, '_'),
    permissions: Object.fromEntries(ACTIONS.map((a) => [a, `${app}.${a}_${modelName}`])) as Resource['permissions'],
    actions: !table ? ACTIONS : !table.writes ? ['view'] : writesAll(table.writes) ? ACTIONS : ['view', 'delete'],
    recordColumns: table ? (table.recordColumns ?? []) : RECORD_COLUMNS,
    engineTable: table,
    extraPermissions: Object.keys(d.extraPermissions ?? {}).map((codename) => `${app}.${codename}`),
    fields,
    foreignKeys: [],
    manyToMany: [],
    ordering: [...(d.ordering ?? [])],
    access: d.access ?? {},
    rules: d.rules ?? [],
    referencedBy: [],
    declaration: d,
  };
}

function link(resource: Resource, byKey: Map<string, Resource>): void {
  const target = (name: string, key: string): Resource => {
    const t = byKey.get(key);
    if (!t) throw new DeclarationError(resource.key, `relation "${name}" targets unknown resource "${key}".`);
    return t;
  };
  // the declaration type forbids relation names that shadow fields; erased here
  const relations = (resource.declaration.relations ?? {}) as Record<string, RelationSpec>;
  for (const [name, spec] of Object.entries(relations)) {
    if (findField(resource, name)) throw new DeclarationError(resource.key, `relation "${name}" has the name of a field.`);
    if (spec.kind === 'fk') {
      const fk: ForeignKeyRef = {
        kind: 'fk',
        name,
        writeName: `${name}_id`,
        column: `${name}_id`,
        target: target(name, spec.target),
        spec,
        required: spec.required === true,
      };
      if (spec.tree && fk.target !== resource) throw new DeclarationError(resource.key, `tree relation "${name}" must target the resource itself.`);
      resource.foreignKeys.push(fk);
      fk.target.referencedBy.push({ resource, fk });
    } else {
      const to = target(name, spec.target);
      const column = (r: Resource) => `${r.name.replace(/-/g, '_')}_id`;
      const joined = { table: `${resource.table}_${name}`, sourceColumn: column(resource), targetColumn: column(to), ...spec };
      const m: ManyToManyRef = { kind: 'm2m', name, writeName: spec.writeName, target: to, spec: joined };
      resource.manyToMany.push(m);
    }
  }
}

function check(resource: Resource): void {
  const fail = (msg: string) => {
    throw new DeclarationError(resource.key, msg);
  };
  const names = new Set<string>();
  for (const n of [...resource.fields.map((f) => f.name), ...resource.foreignKeys.flatMap((r) => [r.name, r.writeName]), ...resource.manyToMany.flatMap((r) => [r.name, r.writeName])]) {
    if (names.has(n)) fail(`the name "${n}" is used twice (fields, relations and their write names must differ).`);
    names.add(n);
  }
  for (const f of resource.fields) {
    const s = f.spec;
    for (const lookup of s.lookups ?? []) {
      if (!typeOf(s).lookups.includes(lookup)) fail(`field "${f.name}" of type ${s.type} offers no "${lookup}" lookup.`);
    }
    // a password signs a user in; changing it ends that user's sessions
    if (s.type === 'password' && resource.key !== PRINCIPALS.user) fail(`password field "${f.name}" belongs on "${PRINCIPALS.user}" only.`);
    if (s.type === 'state') {
      for (const v of [s.default, ...s.initial, ...Object.keys(s.transitions), ...Object.values(s.transitions).flat()]) {
        if (!s.values.includes(v as string)) fail(`state field "${f.name}" names undeclared state "${v}".`);
      }
    }
    if (s.type === 'enum' && s.derived) {
      const via = findForeignKey(resource, s.derived.via);
      if (!via) fail(`derived field "${f.name}" goes through unknown foreign key "${s.derived.via}".`);
      const source = via && findField(via.target, s.derived.field);
      if (!source?.column) fail(`derived field "${f.name}" reads unknown field "${s.derived.field}" of "${via?.target.key}".`);
    }
  }
  for (const table of [resource.table, ...resource.manyToMany.map((m) => m.spec.table)]) {
    if (table.startsWith(STATEMENT_PARTS)) fail(`table "${table}" starts with "${STATEMENT_PARTS}", as the write statements' parts are named.`);
  }
  for (const m of resource.manyToMany) {
    if (m.spec.privileged && !canHoldRights(m.target)) {
      fail(`many-to-many "${m.name}" is privileged, but "${m.target.key}" holds no rights (no permissions or superuser field, not a principal).`);
    }
    const same = m.spec.sameParent;
    if (same && (!findForeignKey(resource, same.local) || !findForeignKey(m.target, same.remote))) {
      fail(`many-to-many "${m.name}": sameParent names foreign keys that do not exist.`);
    }
  }
  for (const rule of resource.rules) {
    const fields = rule.kind === 'order' ? [rule.earlier, rule.later] : [rule.start, rule.end];
    for (const n of fields) if (!findField(resource, n)?.column) fail(`rule "${rule.kind}" names unknown field "${n}".`);
    if (rule.kind === 'noOverlap' && !findForeignKey(resource, rule.scope)) fail(`rule "noOverlap" scope "${rule.scope}" is not a foreign key.`);
  }
  for (const [name, states = []] of Object.entries(resource.declaration.exampleStates ?? {})) {
    const spec = findField(resource, name)?.spec;
    if (spec?.type !== 'state') fail(`exampleStates names "${name}", which is not a state field.`);
    else if (!states.length || states.some((s) => !spec.values.includes(s)) || !spec.initial.includes(states[0]!)) {
      fail(`exampleStates of "${name}" must list declared states, the first an initial one.`);
    }
  }
  for (const o of resource.ordering) {
    const name = o.replace(/^-/, '');
    if (name !== 'id' && !findField(resource, name)?.orderable) fail(`ordering names "${o}", which is not an orderable field.`);
  }
  try {
    checkAccess(resource);
  } catch (err) {
    fail(`access rule ${(err as Error).message}`);
  }
}

/** Refuses a key or a table declared twice among `resources`. */
function refuseTwice(resources: readonly Resource[]): Map<string, Resource> {
  const byKey = new Map<string, Resource>();
  const tables = new Set<string>();
  for (const r of resources) {
    if (byKey.has(r.key)) throw new DeclarationError(r.key, 'declared twice.');
    if (tables.has(r.table)) throw new DeclarationError(r.key, `table "${r.table}" is used by another resource.`);
    byKey.set(r.key, r);
    tables.add(r.table);
  }
  return byKey;
}

/** The engine's own tables, beside the `modules`' resources (whose keys and tables they must not take). */
export function compileEngineTables(declarations: readonly EngineTableDeclaration[], modules: readonly Resource[]): Resource[] {
  const tables = declarations.map((d) => compileOne(d as ResourceDeclaration, d));
  refuseTwice([...modules, ...tables]);
  for (const t of tables) {
    for (const name of Object.keys(t.engineTable?.columns ?? {})) if (!findField(t, name)) throw new DeclarationError(t.key, `columns names unknown field "${name}".`);
    check(t);
  }
  return tables;
}

export function compileDeclarations(declarations: readonly ResourceDeclaration[]): Resource[] {
  const resources = declarations.map((d) => compileOne(d));
  const byKey = refuseTwice(resources);
  for (const r of resources) link(r, byKey);
  for (const r of resources) check(r);
  for (const r of resources) {
    try {
      checkAccessCycles(r);
    } catch (err) {
      throw new DeclarationError(r.key, `access rule ${(err as Error).message}`);
    }
  }
  return resources;
}

export function compileBatches(declarations: readonly BatchDeclaration[], byKey: ReadonlyMap<string, Resource>): Batch[] {
  return declarations.map((d) => {
    const name = `${d.module}/${d.name}`;
    const resource = byKey.get(d.resource);
    if (!resource) throw new DeclarationError(name, `batch targets unknown resource "${d.resource}".`);
    const op = d.operation;
    const foreignKey = op.kind === 'setForeignKey' ? findForeignKey(resource, op.relation) : undefined;
    if (op.kind === 'setForeignKey' && !foreignKey) throw new DeclarationError(name, `"${op.relation}" is not a foreign key of ${resource.key}.`);
    if (op.kind === 'set') {
      for (const field of Object.keys(op.values)) if (!findField(resource, field)?.writable) throw new DeclarationError(name, `"${field}" is not a writable field of ${resource.key}.`);
    }
    return {
      path: `/api/${d.module}/${d.name}`,
      operationId: `${d.module}_${d.name}`,
      resource,
      idsField: `${resource.name.replace(/-/g, '_')}_ids`,
      foreignKey,
      permission: resource.permissions[d.permission],
      maxIds: d.maxIds ?? MAX_LIST_ITEMS,
      declaration: d,
    };
  });
}
