/** Resources module: bookable resources (rooms, vehicles, equipment) and their allocations. */
import { archivedField, defineModule, defineResource, demoRows, descriptionField, field, fk, titleField } from '../engine/declare/index.js';

export const moduleLabel = defineModule({ name: 'resources', label: 'Bookable resources', labelDe: 'Ressourcen' });

export const resources = defineResource({
  module: 'resources',
  name: 'resources',
  title: 'Resource',
  description: 'A bookable resource: a room, a vehicle or a piece of equipment.',
  fields: {
    title: titleField('Name of the resource.'),
    description: descriptionField('Description and equipment of the resource (markdown).'),
    kind: field.enum({
      values: ['room', 'vehicle', 'equipment'],
      required: true,
      description: 'Kind of resource: room, vehicle or equipment.',
    }),
    capacity: field.integer({ minimum: 0, description: 'How many people (seats) or units the resource holds.' }),
    location: field.string({ maxLength: 255, allowBlank: true, search: true, description: 'Where the resource is.' }),
    archived: archivedField('Archived resources can no longer be booked but are kept.'),
  },
  relations: {
    responsible: fk('user', { onDelete: 'set null', assignee: true, description: 'User responsible for the resource.' }),
  },
});

export const allocations = defineResource({
  module: 'resources',
  name: 'allocations',
  title: 'Allocation (booking)',
  description: 'A booking of a resource for a period; bookings of one resource must not overlap.',
  fields: {
    title: titleField('Purpose of the booking.'),
    description: descriptionField('Details of the booking (markdown).'),
    start: field.datetime({ required: true, description: 'When the booking starts.' }),
    end: field.datetime({ required: true, description: 'When the booking ends (exclusive); not before the start.' }),
  },
  relations: {
    // Bookings are parts of the resource's calendar.
    resource: fk('resources/resources', { required: true, onDelete: 'cascade', description: 'Resource booked.' }),
    user: fk('user', { onDelete: 'set null', description: 'User the resource is allocated to.' }),
  },
  rules: [
    { kind: 'order', earlier: 'start', later: 'end' },
    { kind: 'noOverlap', scope: 'resource', start: 'start', end: 'end' },
  ],
});

export default [resources, allocations];

/** Demo data (`manage seed --demo`): a meeting room and a van, booked. */
export const demo = [
  demoRows(resources, [
    { title: 'Sitzungszimmer Säntis', kind: 'room', capacity: 10, location: '1. OG', responsible: 'claudia.brunner' },
    { title: 'Lieferwagen ZH 123 456', kind: 'vehicle', capacity: 3, location: 'Parkplatz Ost', responsible: 'daniel.huber' },
  ]),
  demoRows(allocations, [
    { title: 'Qualitätszirkel', resource: 'Sitzungszimmer Säntis', user: 'anna.keller', start: '2026-03-18T08:00:00.000Z', end: '2026-03-18T09:30:00.000Z' },
    { title: 'Auslieferung Bülach', resource: 'Lieferwagen ZH 123 456', user: 'reto.gerber', start: '2026-03-19T06:30:00.000Z', end: '2026-03-19T11:00:00.000Z' },
  ]),
];
