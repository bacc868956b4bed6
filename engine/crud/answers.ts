/**
 * Answers checked against the questions of the record's parent (the `answers` record rule): every
 * key is the id of one of those questions, every value fits its question's kind, and, when asked
 * to, every required question is answered. Questions the writer cannot see (the questions'
 * view rule) are not asked of them: their answers stay as they were, and they are not required.
 * Returns the messages; the caller files them.
 */
import type { Knex } from 'knex';
import type { AnswerSources } from '../registry/answers-rule.js';
import type { Fragment } from '../storage/sql.js';
import { isCalendarDate } from '../fields/values.js';

interface Question {
  id: number;
  kind: string;
  required: boolean;
  multiple: boolean;
  visible: boolean;
  choices: Set<unknown>;
}

const KINDS: Record<string, { fits(value: unknown, q: Question): boolean; expected(q: Question): string }> = {
  text: { fits: (v) => typeof v === 'string', expected: () => 'a string' },
  number: { fits: (v) => typeof v === 'number', expected: () => 'a number' },
  date: { fits: (v) => typeof v === 'string' && isCalendarDate(v), expected: () => 'a date in the format YYYY-MM-DD' },
  choice: {
    fits: (v, q) => (q.multiple ? Array.isArray(v) && v.every((id) => q.choices.has(id)) : q.choices.has(v)),
    expected: (q) => (q.multiple ? 'a list of ids of its choices' : 'the id of one of its choices'),
  },
};

export const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

const unanswered = (v: unknown): boolean => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

/** The parent's questions by id (as JSON keys are), each with the ids of its choices and whether `visible` (a predicate on alias `t`) holds. */
async function questionsOf(trx: Knex.Transaction, s: AnswerSources, parentId: unknown, visible: Fragment | null): Promise<Map<string, Question>> {
  const rows = (await trx(`${s.questions.table} as t`)
    .where(`t.${s.question.column}`, parentId as number)
    .orderBy('t.id')
    .select(
      't.id',
      `t.${s.type.column!} as kind`,
      `t.${s.required.column!} as required`,
      ...(s.multiple ? [`t.${s.multiple.column!} as multiple`] : []),
      trx.raw(`(${visible?.sql ?? 'true'}) as visible`, (visible?.bindings ?? []) as Knex.RawBinding[]),
    )) as Question[];
  const questions = new Map(rows.map((r) => [String(r.id), { ...r, multiple: r.multiple === true, choices: new Set<unknown>() }]));
  if (rows.length) {
    const choices = (await trx(s.choices.table).whereIn(s.choice.column, rows.map((r) => r.id)).select('id', `${s.choice.column} as question`)) as { id: number; question: number }[];
    for (const c of choices) questions.get(String(c.question))!.choices.add(c.id);
  }
  return questions;
}

export interface AnswersToCheck {
  answers: Record<string, unknown>;
  /** The answers stored before this write (empty on create). */
  before: Record<string, unknown>;
  parentId: unknown;
  /** Whether every required question must be answered. */
  complete: boolean;
  /** Which questions the writer sees (on alias `t`); null: all. */
  visible: Fragment | null;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export async function answerErrors(trx: Knex.Transaction, s: AnswerSources, { answers, before, parentId, complete, visible }: AnswersToCheck): Promise<string[]> {
  const questions = await questionsOf(trx, s, parentId, visible);
  const noun = s.questions.name;
  const Noun = capitalise(noun);
  const messages: string[] = [];
  for (const [key, value] of Object.entries(answers)) {
    const q = questions.get(key);
    if (!q || (!q.visible && !same(value, before[key]))) messages.push(`${Noun} ${key} does not belong to ${s.parent.name} ${String(parentId)}.`);
    else if (!unanswered(value) && !KINDS[q.kind]!.fits(value, q)) messages.push(`Answer to ${noun} ${key} must be ${KINDS[q.kind]!.expected(q)}.`);
  }
  if (complete) {
    for (const q of questions.values()) if (q.required && q.visible && unanswered(answers[String(q.id)])) messages.push(`${Noun} ${q.id} must be answered.`);
  }
  return messages;
}
