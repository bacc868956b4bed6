/** Stream module ("News & Events"): news channels, their posts, events and event participants. */
import { archivedField, defineModule, defineResource, demoRows, descriptionField, field, fk, m2m, titleField, visibilityField } from '../engine/declare/index.js';

export const moduleLabel = defineModule({ name: 'stream', label: 'News & events', labelDe: 'News & Events' });

export const stream = defineResource({
  module: 'stream',
  name: 'stream',
  title: 'Stream (news channel)',
  description: 'A news channel that publishes messages and events to its readers. Changing or deleting it needs being one of its admins or its creator.',
  fields: {
    title: titleField('Name of the channel.'),
    description: descriptionField('What the channel is about (markdown).'),
    visibility: visibilityField('normal: every user with the view permission; protected: its admins, its creator, its team members and the members of its targeted groups only.'),
    subscription_mode: field.enum({
      values: ['fixed', 'opt_in', 'mandatory_for_targeted'],
      default: 'opt_in',
      description: 'fixed: readers are subscribed and cannot leave; opt_in: readers subscribe themselves; mandatory_for_targeted: fixed for targeted groups, opt-in for others.',
    }),
    allow_comments: field.boolean({ default: true, description: 'Whether messages may be commented on by default.' }),
    allow_likes: field.boolean({ default: true, description: 'Whether messages may be liked by default.' }),
    archived: archivedField('Archived channels are kept but hidden from daily work.'),
  },
  relations: {
    admins: m2m('user', { writeName: 'admin_ids', description: 'Users who administer the channel.' }),
    team_members: m2m('user', { writeName: 'team_member_ids', description: 'Users who may post in the channel.' }),
    groups: m2m('customgroup', { writeName: 'group_ids', targetColumn: 'group_id', description: 'Groups the channel targets (its audience).' }),
  },
  access: {
    view: {
      any: [{ field: 'visibility', in: ['normal'] }, { userAmong: 'admins' }, { userIs: 'created_by' }, { userAmong: 'team_members' }, { groupAmong: 'groups' }],
    },
    change: { any: [{ userAmong: 'admins' }, { userIs: 'created_by' }] },
  },
});

export const messages = defineResource({
  module: 'stream',
  name: 'messages',
  title: 'Message (news post)',
  description: 'A news post in a channel; a publication time in the future schedules it. Visible to who sees the channel.',
  fields: {
    title: field.string({ maxLength: 255, allowBlank: true, filter: true, search: true, description: 'Optional headline of the post.' }),
    text: field.text({ required: true, search: true, description: 'Body of the post (markdown; video links are embedded).' }),
    publish_at: field.datetime({ description: 'When the post becomes visible; a future time schedules it, empty publishes at once.' }),
    allow_comments: field.boolean({ default: true, description: 'Whether readers may comment on the post.' }),
    allow_likes: field.boolean({ default: true, description: 'Whether readers may like the post.' }),
    archived: archivedField('Archived posts are kept but hidden from the feed.'),
  },
  relations: {
    // Posts are part of their channel: removing the channel removes its news.
    stream: fk('stream/stream', { required: true, onDelete: 'cascade', description: 'Channel the post is published in.' }),
  },
  access: { view: { via: 'stream', action: 'view' } },
});

export const event = defineResource({
  module: 'stream',
  name: 'event',
  title: 'Event',
  description: 'An event announced in a channel, with optional registration and attendance tracking. Visible to who sees the channel.',
  fields: {
    title: titleField('Name of the event.'),
    text: field.text({ allowBlank: true, search: true, description: 'Description of the event (markdown).' }),
    start: field.datetime({ required: true, description: 'When the event starts.' }),
    end: field.datetime({ required: true, description: 'When the event ends; not before the start.' }),
    all_day: field.boolean({ default: false, description: 'Whether the event lasts whole days (times are ignored in the UI).' }),
    publish_at: field.datetime({ required: true, description: 'When the announcement becomes visible.' }),
    location: field.string({ maxLength: 255, allowBlank: true, search: true, description: 'Where the event takes place.' }),
    location_url: field.url({ maxLength: 500, description: 'Link to the venue or the online meeting.' }),
    min_participants: field.integer({ minimum: 0, description: 'Minimum number of participants for the event to take place.' }),
    max_participants: field.integer({ minimum: 0, description: 'Maximum number of participants; further sign-ups go to the waitlist.' }),
    registration_deadline: field.datetime({ description: 'Last moment to sign up or withdraw; not after the end.' }),
    self_registration: field.boolean({ default: false, description: 'Whether readers may sign up themselves.' }),
    signature_required: field.boolean({ default: false, description: 'Whether attendance must be confirmed with a signature.' }),
    participants_public: field.boolean({
      default: true,
      description:
        "Whether readers see the list of participants; otherwise each sees their own participation, and only the event's admins, attendance checkers and creator and the channel's admins and creator see all.",
    }),
    pinned: field.boolean({ default: false, description: 'Pinned events stay on top of the channel.' }),
  },
  relations: {
    // protect: an event carries registrations and attendance records that would be lost.
    stream: fk('stream/stream', { required: true, onDelete: 'protect', description: 'Channel the event is announced in.' }),
    admins: m2m('user', { writeName: 'admin_ids', description: 'Users who manage the event and its participants.' }),
    attendance_checkers: m2m('user', { writeName: 'attendance_checker_ids', description: 'Users who may confirm attendance.' }),
  },
  access: { view: { via: 'stream', action: 'view' } },
  rules: [
    { kind: 'order', earlier: 'start', later: 'end' },
    { kind: 'order', earlier: 'registration_deadline', later: 'end' },
  ],
});

export const participant = defineResource({
  module: 'stream',
  name: 'participant',
  title: 'Participant',
  description: "A user's invitation to, registration for and attendance at an event; visible to who sees the event, as its `participants_public` says.",
  fields: {
    status: field.state({
      values: ['invited', 'accepted', 'waitlist', 'declined'],
      default: 'invited',
      initial: ['invited', 'accepted', 'waitlist'],
      transitions: {
        invited: ['accepted', 'waitlist', 'declined'],
        waitlist: ['accepted', 'declined'],
        accepted: ['declined'],
        // a declined participant may re-accept (or queue when the event is full)
        declined: ['accepted', 'waitlist'],
      },
      description: 'Registration status: invited, accepted, waitlist (event full) or declined.',
    }),
    attended: field.boolean({ default: false, description: 'Whether attendance was confirmed.' }),
    checked_in_at: field.datetime({ description: 'When attendance was confirmed.' }),
    note: field.text({ allowBlank: true, search: true, description: 'Remark of the participant or the organiser.' }),
  },
  relations: {
    event: fk('stream/event', { required: true, onDelete: 'cascade', description: 'Event the participation belongs to.' }),
    user: fk('user', { required: true, onDelete: 'cascade', description: 'User taking part.' }),
  },
  access: {
    view: {
      all: [
        { via: 'event', action: 'view' },
        {
          any: [
            { userIs: 'user' },
            {
              via: 'event',
              rule: {
                any: [
                  { field: 'participants_public', in: [true] },
                  { userAmong: 'admins' },
                  { userAmong: 'attendance_checkers' },
                  { userIs: 'created_by' },
                  { via: 'stream', action: 'change' },
                ],
              },
            },
          ],
        },
      ],
    },
  },
});

export default [stream, messages, event, participant];

/** Demo data (`manage seed --demo`): company news and the summer party. */
export const demo = [
  demoRows(stream, [
    { title: 'Alpenblick intern', visibility: 'normal', subscription_mode: 'mandatory_for_targeted', allow_comments: true, allow_likes: true, admins: ['beat.meier'], groups: ['Mitarbeitende'] },
    { title: 'Qualität aktuell', visibility: 'protected', subscription_mode: 'opt_in', admins: ['anna.keller'], team_members: ['eva.schneider'] },
  ]),
  demoRows(messages, [
    { title: 'Willkommen, Sandra Frei!', text: 'Sandra verstärkt seit Mai die Produktion als Polymechanikerin.', stream: 'Alpenblick intern', publish_at: '2026-03-02T07:00:00.000Z' },
    { title: 'Neue Qualitätspolitik freigegeben', text: 'Die Qualitätspolitik 2026 ist im Managementhandbuch abgelegt.', stream: 'Qualität aktuell', publish_at: '2026-03-05T07:00:00.000Z' },
  ]),
  demoRows(event, [
    { title: 'Sommerfest 2026', text: 'Grillplausch mit Familien auf dem Firmenareal.', stream: 'Alpenblick intern', start: '2026-06-26T15:00:00.000Z', end: '2026-06-26T21:00:00.000Z', publish_at: '2026-04-01T06:00:00.000Z', registration_deadline: '2026-06-12T22:00:00.000Z', location: 'Firmenareal Grüze, Winterthur', self_registration: true, admins: ['claudia.brunner'] },
  ]),
  demoRows(participant, [
    { key: 'sommerfest-anna', event: 'Sommerfest 2026', user: 'anna.keller', status: 'accepted' },
    { key: 'sommerfest-reto', event: 'Sommerfest 2026', user: 'reto.gerber', status: 'invited' },
    { key: 'sommerfest-daniel', event: 'Sommerfest 2026', user: 'daniel.huber', status: 'declined' },
  ]),
];
