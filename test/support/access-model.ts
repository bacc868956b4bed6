/**
 * A model of a resource's declared access rules, for the registry-driven access tests: the records
 * a rule reads (the record, the record each `via` foreign key points at, one record per `among` or
 * `referencedBy` rule), the variables it depends on (field values, empty keys, periods, and which
 * test user each user link names), and an evaluator that mirrors engine/access/visibility.ts. A search
 * over the variables finds the worlds a test builds: records hidden from one user and shown to another.
 */
import type { AccessRule } from '../../engine/declare/index.js';
import { findField, findForeignKey, findManyToMany, type ForeignKeyRef, type ManyToManyRef, type Resource } from '../../engine/registry/resource.js';

/** The test users: A is admitted by the rule, V (change tests) sees but may not change, U is unrelated to everything. */
export type Who = 'A' | 'V' | 'U';

export type Var =
  | { kind: 'field'; key: string; node: RecordNode; name: string; domain: unknown[] }
  | { kind: 'unset'; key: string; node: RecordNode; name: string; domain: boolean[] }
  | { kind: 'current'; key: string; node: RecordNode; start: string; end: string; domain: boolean[] }
  /** `userIs`: which test user the key names (`none`: nobody in the test). */
  | { kind: 'user'; key: string; node: RecordNode; name: string; domain: ('none' | Who)[] }
  /** `userAmong` / `groupAmong`: which test users (or their groups) the many-to-many holds. */
  | { kind: 'users' | 'groups'; key: string; node: RecordNode; name: string; domain: Who[][] };

/** A variable as declared, before it is keyed and placed. */
type VarSpec = Var extends infer V ? (V extends Var ? Omit<V, 'key' | 'node'> : never) : never;

export type Link =
  | { kind: 'via'; fk: ForeignKeyRef; node: RecordNode }
  | { kind: 'among'; m2m: ManyToManyRef; node: RecordNode }
  | { kind: 'referencedBy'; fk: ForeignKeyRef; node: RecordNode };

/** One record a rule reads, and the records it reads beyond. */
export interface RecordNode {
  resource: Resource;
  path: string;
  vars: Var[];
  links: Link[];
}

export type World = ReadonlyMap<string, unknown>;
type Test = (world: World, who: Who) => boolean;

const subsets = (users: Who[]): Who[][] => users.reduce<Who[][]>((all, u) => [...all, ...all.map((s) => [...s, u])], [[]]);

export class AccessModel {
  readonly root: RecordNode;
  readonly vars = new Map<string, Var>();
  private readonly linkRules = new Map<string, AccessRule>();

  /** `users`: the test users who may be linked (A alone, or A and V). */
  constructor(
    resource: Resource,
    private readonly users: Who[],
  ) {
    this.root = { resource, path: resource.key, vars: [], links: [] };
  }

  /** An evaluator of `rule` on the record `node`, registering what it reads. */
  compile(node: RecordNode, rule: AccessRule): Test {
    if ('any' in rule) {
      const parts = rule.any.map((r) => this.compile(node, r));
      return (w, who) => parts.some((p) => p(w, who));
    }
    if ('all' in rule) {
      const parts = rule.all.map((r) => this.compile(node, r));
      return (w, who) => parts.every((p) => p(w, who));
    }
    if ('field' in rule) {
      const spec = findField(node.resource, rule.field)!.spec;
      const domain = spec.type === 'boolean' ? [true, false] : spec.type === 'state' ? [...spec.initial] : spec.type === 'enum' ? [...spec.values] : [];
      const v = this.variable(node, { kind: 'field', name: rule.field, domain });
      return (w) => rule.in.includes(w.get(v) as string | boolean);
    }
    if ('unset' in rule) {
      const v = this.variable(node, { kind: 'unset', name: rule.unset, domain: [false, true] });
      return (w) => w.get(v) === true;
    }
    if ('current' in rule) {
      const v = this.variable(node, { kind: 'current', start: rule.current.start, end: rule.current.end, domain: [true, false] });
      return (w) => w.get(v) === true;
    }
    if ('userIs' in rule) {
      const v = this.variable(node, { kind: 'user', name: rule.userIs, domain: ['none', ...this.users] });
      return (w, who) => w.get(v) === who;
    }
    if ('userAmong' in rule || 'groupAmong' in rule) {
      const [kind, name] = 'userAmong' in rule ? (['users', rule.userAmong] as const) : (['groups', rule.groupAmong] as const);
      const v = this.variable(node, { kind, name, domain: subsets(this.users) });
      return (w, who) => (w.get(v) as Who[]).includes(who);
    }
    if ('among' in rule) {
      const m2m = findManyToMany(node.resource, rule.among)!;
      const inner = this.compile(this.linked(node, `among ${m2m.name}`, rule.rule, (n) => ({ kind: 'among', m2m, node: n }), m2m.target), rule.rule);
      return inner;
    }
    if ('referencedBy' in rule) {
      const { fk, resource } = node.resource.referencedBy.find((r) => r.resource.key === rule.referencedBy && r.fk.name === rule.by)!;
      return this.compile(this.linked(node, `referencedBy ${resource.key}.${fk.name}`, rule.rule, (n) => ({ kind: 'referencedBy', fk, node: n }), resource), rule.rule);
    }
    const fk = findForeignKey(node.resource, rule.via)!;
    const inner = 'rule' in rule ? rule.rule : fk.target.access[rule.action];
    const target = this.target(node, fk);
    const test: Test = inner ? this.compile(target, inner) : () => true;
    const unset = `${node.path}|unset|${fk.name}`;
    return (w, who) => w.get(unset) !== true && test(w, who);
  }

  private variable(node: RecordNode, spec: VarSpec): string {
    const name = 'name' in spec ? spec.name : `${spec.start}..${spec.end}`;
    const key = `${node.path}|${spec.kind}|${name}`;
    if (!this.vars.has(key)) {
      const v = { ...spec, key, node } as Var;
      this.vars.set(key, v);
      node.vars.push(v);
    }
    return key;
  }

  /** The record `fk` points at (one per key, whatever rules read it). */
  private target(node: RecordNode, fk: ForeignKeyRef): RecordNode {
    const found = node.links.find((l) => l.kind === 'via' && l.fk === fk);
    if (found) return found.node;
    const target: RecordNode = { resource: fk.target, path: `${node.path} > ${fk.name}`, vars: [], links: [] };
    node.links.push({ kind: 'via', fk, node: target });
    return target;
  }

  /**
   * The one record linked through a relation for `rule`. The rule holds when some linked record
   * passes it, which this model mirrors only while one rule reads the relation: a second one throws.
   */
  private linked(node: RecordNode, relation: string, rule: AccessRule, link: (n: RecordNode) => Link, resource: Resource): RecordNode {
    const path = `${node.path} > ${relation}`;
    const seen = this.linkRules.get(path);
    if (seen && seen !== rule) throw new Error(`${path}: two rules read the same relation; the test cannot derive records for that.`);
    this.linkRules.set(path, rule);
    const found = node.links.find((l) => l.node.path === path);
    if (found) return found.node;
    const n: RecordNode = { resource, path, vars: [], links: [] };
    node.links.push(link(n));
    return n;
  }
}

const LIMIT = 3_000_000;

/** Every world over `vars`; throws when there are too many to search. */
function* worlds(vars: readonly Var[]): Generator<World> {
  const size = vars.reduce((n, v) => n * v.domain.length, 1);
  if (size > LIMIT) throw new Error(`${size} combinations of ${vars.length} variables: too many to search.`);
  const index = vars.map(() => 0);
  for (let n = 0; n < size; n++) {
    yield new Map(vars.map((v, i) => [v.key, v.domain[index[i]!]]));
    for (let i = 0; i < index.length && ++index[i]! === vars[i]!.domain.length; i++) index[i] = 0;
  }
}

/** How many user links a value, or a world, makes. */
const links = (v: unknown): number => (Array.isArray(v) ? v.length : v === 'A' || v === 'V' ? 1 : 0);
const cost = (world: World): number => [...world.values()].reduce<number>((n, v) => n + links(v), 0);

/**
 * For each variable, the cheapest pair of worlds that differ in it alone, where `holds` in both and
 * `outcome` differs between them for one of `users`: one pair of records per thing the rule reads,
 * showing that it matters. Variables that never matter have no pair.
 */
export function flips(model: AccessModel, users: Who[], holds: (w: World) => boolean, outcome: (w: World, who: Who) => boolean): Map<string, [World, World]> {
  const best = new Map<string, { pair: [World, World]; cost: number }>();
  const vars = [...model.vars.values()];
  for (const world of worlds(vars)) {
    if (!holds(world)) continue;
    const here = users.map((who) => outcome(world, who));
    const base = cost(world);
    for (const v of vars) {
      for (const value of v.domain) {
        const price = 2 * base - links(world.get(v.key)) + links(value);
        if (value === world.get(v.key) || (best.get(v.key)?.cost ?? Infinity) <= price) continue;
        const other = new Map(world).set(v.key, value);
        if (!holds(other)) continue;
        if (users.some((who, i) => outcome(other, who) !== here[i])) best.set(v.key, { pair: [world, other], cost: price });
      }
    }
  }
  return new Map([...best].map(([key, { pair }]) => [key, pair]));
}

/** A readable list of what a world sets, for failure messages. */
export function describeWorld(model: AccessModel, world: World): string {
  return [...model.vars.values()]
    .map((v) => [v, world.get(v.key)] as const)
    .filter(([, value]) => value !== 'none' && !(Array.isArray(value) && value.length === 0))
    .map(([v, value]) => `${v.key.replace(/\|/g, ' ')}=${JSON.stringify(value)}`)
    .join('; ');
}
