/** Bot module (AI assistant): language models, chat spaces, chats, chat entries and context checks. */
import { archivedField, defineModule, defineResource, demoRows, descriptionField, field, fk, m2m, titleField, visibilityField } from '../engine/declare/index.js';

export const moduleLabel = defineModule({ name: 'bot', label: 'AI assistant', labelDe: 'KI-Assistent' });

export const aimodel = defineResource({
  module: 'bot',
  name: 'aimodel',
  title: 'AI model',
  description: 'A selectable large language model (e.g. GPT-4 Turbo, Gemini Flash, Claude Sonnet).',
  fields: {
    name: titleField('Display name of the model.'),
    provider: field.string({ maxLength: 100, required: true, filter: true, search: true, description: 'Vendor serving the model, e.g. `openai`, `google`, `anthropic`.' }),
    context_window: field.integer({ minimum: 1, maximum: 100_000_000, required: true, description: 'Maximum number of tokens the model reads at once.' }),
    supports_web_search: field.boolean({ default: false, description: 'Whether chats with this model may search the web.' }),
    is_default: field.boolean({ default: false, description: 'Whether the model is preselected for new chats.' }),
    active: field.boolean({ default: true, description: 'Inactive models cannot be chosen any more.' }),
  },
});

export const chatspace = defineResource({
  module: 'bot',
  name: 'chatspace',
  title: 'Chat space',
  description: 'A shared space grouping chats, with its own admins, members and defaults. Changing or deleting it needs being one of its admins or its creator.',
  fields: {
    title: titleField('Name of the chat space.'),
    description: descriptionField('Purpose of the chat space (markdown).'),
    visibility: visibilityField('normal: every user with the view permission; protected: its admins, its creator and its members only.'),
  },
  relations: {
    default_model: fk('bot/aimodel', { onDelete: 'set null', description: 'Model preselected for new chats in the space.' }),
    default_template: fk('bot/chat', { onDelete: 'set null', description: 'Template chat new chats in the space start from.' }),
    admins: m2m('user', { writeName: 'admin_ids', description: 'Users who administer the space.' }),
    members: m2m('user', { writeName: 'member_ids', description: 'Users who work in the space.' }),
  },
  access: {
    view: { any: [{ field: 'visibility', in: ['normal'] }, { userAmong: 'admins' }, { userIs: 'created_by' }, { userAmong: 'members' }] },
    change: { any: [{ userAmong: 'admins' }, { userIs: 'created_by' }] },
  },
});

export const chat = defineResource({
  module: 'bot',
  name: 'chat',
  title: 'Chat',
  description:
    'A conversation with an AI model, or a template (with a system role) for new conversations. A normal chat is visible to who sees its space ' +
    "(to all without one). Changing or deleting it needs being its creator or an admin or the creator of its space.",
  fields: {
    title: titleField('Name of the chat.'),
    description: descriptionField('What the chat is about (markdown).'),
    temperature: field.decimal({ digits: 3, decimals: 2, minimum: 0, maximum: 2, default: '1.00', description: 'Sampling temperature 0.00–2.00; higher answers are more varied.' }),
    web_search: field.boolean({ default: false, description: 'Whether the model may search the web (search-capable models only).' }),
    visibility: visibilityField(
      'normal: every user with the view permission; protected: its creator, its contributors, and the admins, creator and members of its space only.',
    ),
    is_template: field.boolean({ default: false, description: 'Whether the chat is a template for new chats.' }),
    system_role: field.text({ allowBlank: true, description: 'Instructions given to the model before the conversation (templates).' }),
    archived: archivedField('Archived chats are kept but hidden.'),
  },
  relations: {
    aimodel: fk('bot/aimodel', { onDelete: 'set null', description: 'Model answering in the chat.' }),
    chatspace: fk('bot/chatspace', { onDelete: 'set null', description: 'Space the chat belongs to; empty for a personal chat.' }),
    contributors: m2m('user', { writeName: 'contributor_ids', description: 'Users who share the chat.' }),
  },
  access: {
    view: {
      any: [
        { all: [{ field: 'visibility', in: ['normal'] }, { any: [{ unset: 'chatspace' }, { via: 'chatspace', action: 'view' }] }] },
        { userIs: 'created_by' },
        { userAmong: 'contributors' },
        { via: 'chatspace', rule: { any: [{ userAmong: 'admins' }, { userIs: 'created_by' }, { userAmong: 'members' }] } },
      ],
    },
    change: { any: [{ userIs: 'created_by' }, { via: 'chatspace', action: 'change' }] },
  },
});

export const entry = defineResource({
  module: 'bot',
  name: 'entry',
  title: 'Entry (chat message)',
  description: 'One message of a chat: a question, an answer or a system instruction; visible to who sees the chat.',
  fields: {
    role: field.enum({
      values: ['user', 'assistant', 'system'],
      required: true,
      description: 'Who speaks: user (question), assistant (model answer) or system (instruction).',
    }),
    content: field.text({ required: true, search: true, maxLength: 100_000, description: 'Text of the message (markdown).' }),
    version: field.integer({ minimum: 1, default: 1, description: 'Version of the entry; regenerated answers count up.' }),
  },
  relations: {
    chat: fk('bot/chat', { required: true, onDelete: 'cascade', description: 'Chat the entry is part of.' }),
    aimodel: fk('bot/aimodel', { onDelete: 'set null', description: 'Model that produced the answer (may differ per entry).' }),
  },
  access: { view: { via: 'chat', action: 'view' } },
});

export const contextCheck = defineResource({
  module: 'bot',
  name: 'context_check',
  title: 'Context check',
  description: 'A check whether a context (prompt and documents) fits the context window of a model; visible to who sees its chat (to all without one).',
  fields: {
    content: field.text({ required: true, maxLength: 100_000, description: 'The context text that was checked.' }),
    token_count: field.integer({ minimum: 0, description: 'Number of tokens the context needs.' }),
    fits: field.boolean({ default: false, description: 'Result: whether the context fits the model’s context window.' }),
    message: field.string({ maxLength: 255, allowBlank: true, description: 'Short explanation of the result.' }),
  },
  relations: {
    aimodel: fk('bot/aimodel', { required: true, onDelete: 'cascade', description: 'Model whose context window was checked.' }),
    chat: fk('bot/chat', { onDelete: 'cascade', description: 'Chat the check was made for.' }),
  },
  access: { view: { any: [{ unset: 'chat' }, { via: 'chat', action: 'view' }] } },
});

export default [aimodel, chatspace, chat, entry, contextCheck];

/** Demo data (`manage seed --demo`): one model and a chat about the handbook. */
export const demo = [
  demoRows(aimodel, [{ name: 'Swiss GPT mini', provider: 'swiss-ai', context_window: 32000, is_default: true, active: true }]),
  demoRows(chatspace, [{ title: 'Qualität', visibility: 'protected', default_model: 'Swiss GPT mini', admins: ['anna.keller'], members: ['eva.schneider'] }]),
  demoRows(chat, [{ title: 'Fragen zur Qualitätspolitik', chatspace: 'Qualität', aimodel: 'Swiss GPT mini', temperature: '0.20', contributors: ['eva.schneider'] }]),
  demoRows(entry, [
    { key: 'frage', chat: 'Fragen zur Qualitätspolitik', role: 'user', content: 'Was verlangt unsere Qualitätspolitik bei Reklamationen?', version: 1 },
    { key: 'antwort', chat: 'Fragen zur Qualitätspolitik', role: 'assistant', content: 'Jede Reklamation wird innert 48 Stunden bestätigt und mit einer Korrekturmassnahme abgeschlossen.', version: 1, aimodel: 'Swiss GPT mini' },
  ]),
  demoRows(contextCheck, [{ key: 'handbuch', aimodel: 'Swiss GPT mini', chat: 'Fragen zur Qualitätspolitik', content: 'Managementhandbuch, Kapitel 1 bis 4', token_count: 5200, fits: true }]),
];
