/** Rule `order`: `later` is not before `earlier` when both are set. Reported under `later`. */
import type { RecordRule } from '../declare/index.js';

export const outOfOrder = (rule: Extract<RecordRule, { kind: 'order' }>): string => `Must not be before ${rule.earlier}.`;
