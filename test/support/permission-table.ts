/**
 * The tables of docs/permissions.md as the registry gives them: one row per resource path (the
 * engine's tables' too, but the trash, which has none of its own; `—` for an action a read-only one
 * does not serve), then per batch path.
 */
import { ACTIONS, permissionOf } from '../../engine/registry/resource.js';
import type { Registry } from '../../engine/registry/registry.js';

export function permissionRows(registry: Registry): string[] {
  // a table of the modules' records (the trash) has no names of its own
  const resources = [...registry.resources, ...registry.tables].filter((r) => permissionOf(r, 'view') !== undefined).sort((a, b) => a.path.localeCompare(b.path));
  return [
    ...resources.map((r) => `| ${r.path} | ${ACTIONS.map((a) => (r.actions.includes(a) ? `\`${r.permissions[a]}\`` : '—')).join(' | ')} |`),
    ...registry.batches.map((b) => `| ${b.path} | POST | \`${b.permission}\` |`),
  ];
}
