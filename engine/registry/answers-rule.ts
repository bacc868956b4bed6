/**
 * Links an `answers` record rule to what it reads: the questions of the record's parent, their
 * type and flags, and the choices of choice questions. The registry links every such rule at boot,
 * so a wrong name stops the start; writes reuse those links.
 */
import type { RecordRule } from '../declare/index.js';
import { findField, findForeignKey, type Field, type ForeignKeyRef, type Resource } from './resource.js';

export type AnswersRule = Extract<RecordRule, { kind: 'answers' }>;

/** The answer kinds the engine checks; a question's type field takes only these values. */
export const ANSWER_KINDS: readonly string[] = ['text', 'number', 'date', 'choice'];

export interface AnswerSources {
  /** This record's foreign key to the questions' parent. */
  parent: ForeignKeyRef;
  questions: Resource;
  /** The questions' foreign key to that parent. */
  question: ForeignKeyRef;
  type: Field;
  required: Field;
  multiple: Field | undefined;
  choices: Resource;
  /** The choices' foreign key to their question. */
  choice: ForeignKeyRef;
}

const linked = new WeakMap<AnswersRule, AnswerSources>();

/** The rule's links, made once; throws naming the first declared name that does not fit. */
export function answerSources(resource: Resource, rule: AnswersRule): AnswerSources {
  let sources = linked.get(rule);
  if (!sources) linked.set(rule, (sources = link(resource, rule)));
  return sources;
}

function link(resource: Resource, rule: AnswersRule): AnswerSources {
  const fail = (message: string): never => {
    throw new Error(`rule "answers": ${message}`);
  };
  if (findField(resource, rule.field)?.spec.type !== 'json') fail(`"${rule.field}" is not a JSON field.`);
  const parent = findForeignKey(resource, rule.parent) ?? fail(`"${rule.parent}" is not a foreign key.`);
  const referrer = (target: Resource, key: string, name: string): Resource['referencedBy'][number] =>
    target.referencedBy.find((r) => r.resource.key === key && r.fk.name === name) ?? fail(`"${key}" has no foreign key "${name}" to "${target.key}".`);
  const { resource: questions, fk: question } = referrer(parent.target, rule.questions.resource, rule.questions.parent);
  const { resource: choices, fk: choice } = referrer(questions, rule.choices.resource, rule.choices.question);
  const flag = (name: string): Field => {
    const f = findField(questions, name);
    return f?.spec.type === 'boolean' ? f : fail(`"${name}" is not a boolean field of "${questions.key}".`);
  };
  const type = findField(questions, rule.questions.type);
  if (type?.spec.type !== 'enum' || type.spec.values.some((v) => !ANSWER_KINDS.includes(v))) {
    fail(`"${rule.questions.type}" of "${questions.key}" must be an enum of answer kinds (${ANSWER_KINDS.join(', ')}).`);
  }
  const except = rule.exceptIn && findField(resource, rule.exceptIn.field)?.spec;
  if (rule.exceptIn && (except?.type !== 'state' || rule.exceptIn.states.some((s) => !except.values.includes(s)))) {
    fail(`exceptIn names states that "${rule.exceptIn.field}" does not declare.`);
  }
  return {
    parent,
    questions,
    question,
    type: type!,
    required: flag(rule.questions.required),
    multiple: rule.questions.multiple === undefined ? undefined : flag(rule.questions.multiple),
    choices,
    choice,
  };
}
