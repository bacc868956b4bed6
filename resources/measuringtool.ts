/** Measuringtool module ("Prüfmittel"): test and measuring equipment and its calibration schedule. */
import { archivedField, defineModule, defineResource, demoRows, descriptionField, field, fk, titleField } from '../engine/declare/index.js';

export const moduleLabel = defineModule({ name: 'measuringtool', label: 'Measuring tools', labelDe: 'Prüfmittel' });

export const measuringtool = defineResource({
  module: 'measuringtool',
  name: 'measuringtool',
  title: 'Measuring tool (Prüfmittel)',
  titleDe: 'Prüfmittel',
  description: 'A piece of test or measuring equipment that must be calibrated at regular intervals.',
  fields: {
    title: titleField('Name of the tool.'),
    description: descriptionField('Description and use of the tool (markdown).'),
    number: field.string({ maxLength: 50, allowBlank: true, search: true, description: 'Internal inventory number.' }),
    serial_number: field.string({ maxLength: 100, allowBlank: true, filter: true, search: true, description: "Manufacturer's serial number." }),
    manufacturer: field.string({ maxLength: 255, allowBlank: true, search: true, description: 'Maker of the tool.' }),
    location: field.string({ maxLength: 255, allowBlank: true, search: true, description: 'Where the tool is kept.' }),
    calibration_interval: field.integer({ minimum: 1, maximum: 240, description: 'Months between two calibrations.' }),
    last_calibration: field.date({ description: 'Day of the last calibration.' }),
    next_calibration: field.date({ description: 'Day the next calibration is due; not before the last one.' }),
    archived: archivedField('Archived (retired) tools are kept but hidden from daily work.'),
  },
  relations: {
    responsible: fk('user', { onDelete: 'set null', assignee: true, description: 'User responsible for the tool and its calibration.' }),
  },
  rules: [{ kind: 'order', earlier: 'last_calibration', later: 'next_calibration' }],
});

export default [measuringtool];

/** Demo data (`manage seed --demo`). */
export const demo = [
  demoRows(measuringtool, [
    { title: 'Messschieber digital 150 mm', number: 'PM-001', manufacturer: 'Tesa', serial_number: 'T150-88213', location: 'Halle Nord', calibration_interval: 12, last_calibration: '2025-11-10', next_calibration: '2026-11-10', responsible: 'eva.schneider' },
    { title: 'Bügelmessschraube 25–50 mm', number: 'PM-002', manufacturer: 'Mitutoyo', location: 'Messraum', calibration_interval: 12, last_calibration: '2025-03-02', next_calibration: '2026-03-02', responsible: 'eva.schneider' },
  ]),
];
