/**
 * Every scheduled job of the service: each resource's `schedules` (`<module>.<resource>.<name>`)
 * and the engine's chores (`engine.<name>`), checked once at start: unique names, valid cron
 * expressions, events the resource declares.
 */
import cronParser from 'cron-parser';
import type { ScheduleDeclaration } from '../declare/schedules.js';
import type { Registry } from '../registry/registry.js';
import type { Resource } from '../registry/resource.js';
import { ENGINE_CHORES } from './chores.js';

export interface ScheduledJob {
  /** The job's name in `/api/jobs`, the queue and `manage run-job`. */
  name: string;
  declaration: ScheduleDeclaration;
  /** The resource that declares it; none for the engine's chores. */
  resource?: Resource;
}

export const DEFAULT_RETRY = { limit: 3, delaySeconds: 60 } as const;

/** When `cron` next fires after `after` (UTC). */
export const nextRun = (cron: string, after = new Date()): Date => cronParser.parseExpression(cron, { tz: 'UTC', currentDate: after }).next().toDate();

const NAME = /^[a-z][a-z0-9_]*$/;

export function scheduledJobs(registry: Pick<Registry, 'resources'>): ScheduledJob[] {
  const jobs: ScheduledJob[] = [
    ...ENGINE_CHORES.map((declaration) => ({ name: `engine.${declaration.name}`, declaration })),
    ...registry.resources.flatMap((resource) =>
      (resource.declaration.schedules ?? []).map((declaration) => ({ name: `${resource.module}.${resource.name}.${declaration.name}`, declaration, resource })),
    ),
  ];
  const seen = new Set<string>();
  for (const { name, declaration } of jobs) {
    if (!NAME.test(declaration.name)) throw new Error(`Scheduled job "${name}": its name must be lower-case letters, digits and underscores.`);
    if (seen.has(name)) throw new Error(`Scheduled job "${name}" is declared twice.`);
    seen.add(name);
    try {
      cronParser.parseExpression(declaration.cron, { tz: 'UTC' });
    } catch (err) {
      throw new Error(`Scheduled job "${name}": cron "${declaration.cron}" is not a cron expression (${(err as Error).message}).`, { cause: err });
    }
  }
  return jobs;
}
