/** Glossar module (glossary): terms and their definitions. */
import { archivedField, defineModule, defineResource, demoRows, field, titleField } from '../engine/declare/index.js';

export const moduleLabel = defineModule({ name: 'glossar', label: 'Glossary', labelDe: 'Glossar' });

export const entry = defineResource({
  module: 'glossar',
  name: 'entry',
  title: 'Entry (Glossareintrag, glossary entry)',
  description: 'A term of the organisation with its definition.',
  fields: {
    title: titleField('The term being defined.'),
    description: field.text({ required: true, search: true, description: 'Definition of the term (markdown).' }),
    synonyms: field.string({ maxLength: 500, allowBlank: true, search: true, description: 'Other terms with the same meaning, comma-separated.' }),
    archived: archivedField('Archived entries are kept but hidden from the glossary.'),
    trashed: field.boolean({ default: false, description: 'Entries in the trash, before final deletion.' }),
  },
});

export default [entry];

/** Demo data (`manage seed --demo`). */
export const demo = [
  demoRows(entry, [
    { title: 'Korrekturmassnahme', description: 'Massnahme, die die Ursache eines Fehlers beseitigt, damit er nicht wieder auftritt.', synonyms: 'KM, corrective action' },
    { title: 'Lenkung von Dokumenten', description: 'Wie Dokumente erstellt, geprüft, freigegeben, verteilt und archiviert werden.' },
    { title: 'Prüfmittel', description: 'Messgerät, das regelmässig kalibriert wird, z. B. Messschieber oder Lehrdorn.', synonyms: 'Messmittel' },
  ]),
];
