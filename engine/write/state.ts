/**
 * Rule (`state` fields): a new record starts in a declared initial state; a change moves along a
 * declared transition. Diagnostics: the state asked for, and the state it would move from.
 */
import type { StateField } from '../declare/fields.js';

export interface BadStart {
  to: string;
}
export interface BadMove {
  from: string;
  to: string;
}

export const badStart = (spec: StateField, { to }: BadStart): string => `"${to}" is not a valid initial state; use one of: ${spec.initial.join(', ')}.`;

export const badMove = ({ from, to }: BadMove): string => `Transition from "${from}" to "${to}" is not allowed.`;
