/**
 * `manage permissions`: every permission name the declarations define, as a markdown table: one row
 * per resource path (the engine's tables' too; `—` for an action a read-only one does not serve),
 * then one per batch path, then the extra permissions. Generated, so no list is kept by hand.
 */
import { ACTIONS, permissionOf } from '../registry/resource.js';
import type { Registry } from '../registry/registry.js';

export function permissionTable(registry: Registry): string {
  // a table without names of its own (the trash: each record's own permissions decide) has no row
  const resources = [...registry.resources, ...registry.tables].filter((t) => permissionOf(t, 'view') !== undefined).sort((a, b) => a.path.localeCompare(b.path));
  const extras = resources.flatMap((r) => r.extraPermissions.map((name) => `| ${r.path} | \`${name}\` |`));
  return [
    '| Path | view | add | change | delete |',
    '|---|---|---|---|---|',
    ...resources.map((r) => `| ${r.path} | ${ACTIONS.map((a) => (r.actions.includes(a) ? `\`${r.permissions[a]}\`` : '—')).join(' | ')} |`),
    '',
    '| Batch path | Method | Permission |',
    '|---|---|---|',
    ...registry.batches.map((b) => `| ${b.path} | POST | \`${b.permission}\` |`),
    ...(extras.length ? ['', '| Path | Extra permission |', '|---|---|', ...extras] : []),
  ].join('\n');
}
