/**
 * The engine's own tables the API serves, declared as resources (declare/engine-table.ts) over the
 * modules' resources, whose records they are about. A table the next feature adds is one more
 * declaration here.
 */
import { auditEntries } from '../audit/resource.js';
import type { EngineTableDeclaration } from '../declare/engine-table.js';
import { scheduledJobs } from '../jobs/resource.js';
import { trashEntries } from '../history/resource.js';
import { webhookDeliveries, webhookSubscriptions } from '../webhooks/resources.js';
import type { Resource } from './resource.js';

export const engineTables = (modules: readonly Resource[]): EngineTableDeclaration[] => [auditEntries(modules), webhookSubscriptions(modules), webhookDeliveries(modules), scheduledJobs(), trashEntries(modules)];
