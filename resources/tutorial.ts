/** Tutorial module ("Wissen", knowledge): folders of courses, their lessons and sections, and learners' progress. */
import { defineModule, defineResource, demoRows, descriptionField, field, fk, m2m, positionField, titleField, visibilityField } from '../engine/declare/index.js';

// Approval workflow shared by folders, courses and lessons (catalogue: draft, in review, approved, expired, archived).
const approvalState = () =>
  field.state({
    values: ['draft', 'review', 'approved', 'expired', 'archived'],
    default: 'draft',
    initial: ['draft'],
    transitions: {
      draft: ['review'],
      review: ['approved', 'draft'],
      approved: ['expired', 'archived', 'draft'],
      expired: ['approved', 'archived', 'draft'],
      archived: ['draft'],
    },
    description: 'Approval workflow: draft, review (in review), approved, expired, archived.',
  });

export const moduleLabel = defineModule({ name: 'tutorial', label: 'Knowledge', labelDe: 'Wissen' });

export const folder = defineResource({
  module: 'tutorial',
  name: 'folder',
  title: 'Folder (tutorial folder)',
  description: 'A container grouping courses, with its own admins, team and visibility. Changing or deleting it needs being one of its admins or its creator.',
  fields: {
    title: titleField('Name of the folder.'),
    description: descriptionField('What the folder contains (markdown).'),
    order: positionField('Position among folders (ascending).'),
    state: approvalState(),
    visibility: visibilityField('normal: every user with the view permission; protected: its admins, its creator and its team members only.'),
  },
  relations: {
    admins: m2m('user', { writeName: 'admin_ids', description: 'Users who administer the folder.' }),
    team_members: m2m('user', { writeName: 'team_member_ids', description: 'Users who see a protected folder.' }),
  },
  access: {
    view: { any: [{ field: 'visibility', in: ['normal'] }, { userAmong: 'admins' }, { userIs: 'created_by' }, { userAmong: 'team_members' }] },
    change: { any: [{ userAmong: 'admins' }, { userIs: 'created_by' }] },
  },
});

export const course = defineResource({
  module: 'tutorial',
  name: 'course',
  title: 'Course',
  description:
    'A training course (with enrollment and progress) or a manual (read-only articles) made of lessons. Visible only to who sees its folder; ' +
    "changing or deleting it (and its lessons) needs being one of its admins, its creator, or an admin or the creator of its folder.",
  fields: {
    title: titleField('Name of the course.'),
    description: descriptionField('What the course teaches (markdown).'),
    mode: field.enum({
      values: ['training', 'manual'],
      required: true,
      description: 'training: enrollment, progress and certificate; manual: articles with comments. Do not switch once lessons exist.',
    }),
    state: approvalState(),
    visibility: visibilityField(
      'normal: every user who sees its folder; protected: its admins, its creator, and the admins, creator and team members of its folder only.',
    ),
  },
  relations: {
    // protect: a course holds lessons and enrollments (training records).
    folder: fk('tutorial/folder', { required: true, onDelete: 'protect', description: 'Folder the course is filed in.' }),
    admins: m2m('user', { writeName: 'admin_ids', description: 'Users who administer the course.' }),
    labels: m2m('process/label', { writeName: 'label_ids', description: 'Shared labels (managed under process labels).' }),
  },
  access: {
    view: {
      all: [
        { via: 'folder', action: 'view' },
        {
          any: [
            { field: 'visibility', in: ['normal'] },
            { userAmong: 'admins' },
            { userIs: 'created_by' },
            { via: 'folder', rule: { any: [{ userAmong: 'admins' }, { userIs: 'created_by' }, { userAmong: 'team_members' }] } },
          ],
        },
      ],
    },
    change: { any: [{ userAmong: 'admins' }, { userIs: 'created_by' }, { via: 'folder', action: 'change' }] },
  },
});

export const lesson = defineResource({
  module: 'tutorial',
  name: 'lesson',
  title: 'Lesson',
  description: 'A lesson of a course; lessons nest under parent lessons. Seen and changed by who may see and change the course.',
  attachments: true,
  fields: {
    title: titleField('Name of the lesson.'),
    description: descriptionField('Summary of the lesson (markdown).'),
    state: approvalState(),
    bpmn_id: field.string({ maxLength: 100, allowBlank: true, description: 'Id of the BPMN diagram element the lesson explains.' }),
    order: positionField('Position among its sibling lessons (ascending).'),
  },
  relations: {
    course: fk('tutorial/course', { required: true, onDelete: 'cascade', description: 'Course the lesson is part of.' }),
    parent: fk('tutorial/lesson', { onDelete: 'cascade', tree: true, description: 'Parent lesson; deleting a lesson deletes its sub-lessons.' }),
    labels: m2m('process/label', { writeName: 'label_ids', description: 'Shared labels (managed under process labels).' }),
  },
  access: { view: { via: 'course', action: 'view' }, change: { via: 'course', action: 'change' } },
});

export const section = defineResource({
  module: 'tutorial',
  name: 'section',
  title: 'Section',
  description: 'A content block of a lesson: text, image, video, PDF, diagram or related documents. Seen and changed by who may see and change the lesson.',
  fields: {
    type: field.enum({
      values: ['text', 'image', 'video', 'pdf', 'bpmn', 'excalidraw', 'related_documents'],
      default: 'text',
      description: 'Kind of content the section shows.',
    }),
    title: field.string({ maxLength: 255, allowBlank: true, filter: true, search: true, description: 'Optional heading of the section.' }),
    text: field.text({ allowBlank: true, search: true, maxLength: 100_000, description: 'Text content (markdown).' }),
    url: field.url({ maxLength: 500, description: 'Link to the embedded content (YouTube, Vimeo, Loom, Arcade, SharePoint, Excalidraw).' }),
    layout: field.enum({
      values: ['full', 'left', 'right'],
      default: 'full',
      description: 'Placement: full width, or media on the left or right of the text.',
    }),
    order: positionField('Position within the lesson (ascending).'),
  },
  relations: {
    lesson: fk('tutorial/lesson', { required: true, onDelete: 'cascade', description: 'Lesson the section belongs to.' }),
  },
  access: { view: { via: 'lesson', action: 'view' }, change: { via: 'lesson', action: 'change' } },
});

export const enrollment = defineResource({
  module: 'tutorial',
  name: 'enrollment',
  title: 'Enrollment',
  description: "A user's enrollment in a training course, from invitation to completion; visible to who sees the course and to the learner.",
  fields: {
    state: field.state({
      values: ['invited', 'not_started', 'in_progress', 'completed'],
      default: 'invited',
      initial: ['invited', 'not_started'],
      transitions: {
        invited: ['not_started', 'in_progress'],
        not_started: ['in_progress'],
        in_progress: ['completed'],
      },
      description: 'invited, not_started, in_progress (after the first lesson visit), completed (final; needed for a certificate).',
    }),
    deadline: field.date({ description: 'Date by which the course should be completed.' }),
    start_date: field.date({ description: 'Day the learner started the course.' }),
    completion_date: field.date({ description: 'Day the learner completed the course.' }),
  },
  relations: {
    // protect on both: enrollments are training evidence (certificates).
    course: fk('tutorial/course', { required: true, onDelete: 'protect', description: 'Course enrolled in.' }),
    user: fk('user', { required: true, onDelete: 'protect', description: 'Enrolled learner.' }),
  },
  access: { view: { any: [{ via: 'course', action: 'view' }, { userIs: 'user' }] } },
  rules: [{ kind: 'order', earlier: 'start_date', later: 'completion_date' }],
});

export const lessonProgress = defineResource({
  module: 'tutorial',
  name: 'lesson-progress',
  title: 'Lesson progress',
  description: "A learner's progress in one lesson; a lesson invitation creates one with status invited. Visible to who sees the lesson and to the learner.",
  fields: {
    percent: field.integer({ minimum: 0, maximum: 100, default: 0, description: 'Share of the lesson worked through, 0–100.' }),
    completed: field.boolean({ default: false, description: 'Whether the learner finished the lesson.' }),
    status: field.enum({
      values: ['invited', 'not_started', 'in_progress', 'completed', 'not_required'],
      default: 'not_started',
      description: 'invited, not_started, in_progress, completed, or not_required (lesson exempted for this learner).',
    }),
    deadline: field.date({ description: 'Date by which the lesson should be completed.' }),
    completed_at: field.datetime({ description: 'When the lesson was completed.' }),
  },
  relations: {
    lesson: fk('tutorial/lesson', { required: true, onDelete: 'cascade', description: 'Lesson the progress is about.' }),
    user: fk('user', { required: true, onDelete: 'cascade', description: 'Learner.' }),
  },
  access: { view: { any: [{ via: 'lesson', action: 'view' }, { userIs: 'user' }] } },
});

export default [folder, course, lesson, section, enrollment, lessonProgress];

/** Demo data (`manage seed --demo`): onboarding course with lessons and enrolments. */
export const demo = [
  demoRows(folder, [{ title: 'Einführung', state: 'approved', admins: ['claudia.brunner'] }]),
  demoRows(course, [
    { title: 'Onboarding Produktion', folder: 'Einführung', mode: 'training', state: 'approved', admins: ['daniel.huber'], labels: ['Kernprozess'] },
    { title: 'Handbuch Arbeitssicherheit', folder: 'Einführung', mode: 'manual', state: 'draft' },
  ]),
  demoRows(lesson, [
    { title: 'Rundgang und Sicherheit', course: 'Onboarding Produktion', state: 'approved', order: 1 },
    { title: 'Unsere Maschinen', course: 'Onboarding Produktion', state: 'approved', order: 2 },
    { title: 'CNC-Fräse bedienen', parent: 'Unsere Maschinen', course: 'Onboarding Produktion', state: 'review', order: 1 },
  ]),
  demoRows(section, [
    { title: 'Willkommen', type: 'text', text: 'Schön, dass du da bist! In dieser Lektion lernst du die Halle kennen.', lesson: 'Rundgang und Sicherheit', order: 1 },
    { title: 'Video Notausgänge', type: 'video', url: 'https://example.ch/videos/notausgaenge', lesson: 'Rundgang und Sicherheit', order: 2 },
  ]),
  demoRows(enrollment, [
    { key: 'onboarding-sandra', course: 'Onboarding Produktion', user: 'sandra.frei', state: 'in_progress', start_date: '2026-05-04', deadline: '2026-06-30' },
    { key: 'onboarding-reto', course: 'Onboarding Produktion', user: 'reto.gerber', state: 'completed', start_date: '2019-09-02', completion_date: '2019-09-30' },
  ]),
  demoRows(lessonProgress, [
    { key: 'sandra-rundgang', lesson: 'Rundgang und Sicherheit', user: 'sandra.frei', percent: 100, completed: true, status: 'completed', completed_at: '2026-05-04T14:00:00.000Z' },
    { key: 'sandra-maschinen', lesson: 'Unsere Maschinen', user: 'sandra.frei', percent: 40, status: 'in_progress' },
  ]),
];
