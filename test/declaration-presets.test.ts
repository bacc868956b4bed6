/**
 * Field presets keep a declaration checked: the fields they add are known to the declaration's
 * types (ordering, relations and access name them), and a wrong declaration is a compile error
 * (each `@ts-expect-error` below fails the build when the types let it through) that the
 * registry refuses at start-up too.
 */
import { expect } from 'chai';
import { catalogueFields, defineResource, fk, positionField, titleField, visibilityField } from '../engine/declare/index.js';
import { compileDeclarations } from '../engine/registry/compile.js';

const scratch = { module: 'scratch', title: 'Scratch', description: 'A resource of this test only.' } as const;
const catalogue = catalogueFields({ title: 'Name of the kind.', description: 'Notes on the kind.', archived: 'Archived kinds are hidden.' });

const kind = defineResource({ ...scratch, name: 'kind', table: 'scratch_kind', fields: catalogue, ordering: ['title'] });
const step = defineResource({
  ...scratch,
  name: 'step',
  table: 'scratch_step',
  fields: { title: titleField('Name of the step.'), position: positionField('Place of the step.'), visibility: visibilityField('Who sees the step.') },
  relations: { kind: fk('scratch/kind', { required: true, onDelete: 'protect', description: 'Kind of the step.' }) },
  ordering: ['position', '-title'],
  access: { view: { field: 'visibility', in: ['normal'] } },
});

describe('Declarations with field presets', () => {
  it('compile with the fields the presets add, usable in ordering, relations and access', () => {
    const [compiledKind, compiledStep] = compileDeclarations([kind, step]);
    expect(compiledKind!.fields.map((f) => f.name)).to.deep.equal(['title', 'description', 'archived']);
    expect(compiledStep!.fields.map((f) => [f.name, f.spec.type])).to.deep.equal([
      ['title', 'string'],
      ['position', 'integer'],
      ['visibility', 'enum'],
    ]);
    expect(compiledStep!.ordering).to.deep.equal(['position', '-title']);
  });

  it('refuse a wrong declaration at compile time and at start-up', () => {
    // @ts-expect-error a catalogue needs the description of its archived flag too
    void catalogueFields({ title: 'Name.', description: 'Notes.' });
    // @ts-expect-error a catalogue has no other fields to describe
    void catalogueFields({ title: 'Name.', description: 'Notes.', archived: 'Hidden.', name: 'Name.' });
    // @ts-expect-error a description is text
    void titleField(255);
    const unknownOrdering = defineResource({
      ...scratch,
      name: 'unknown-ordering',
      table: 'scratch_unknown_ordering',
      fields: catalogue,
      // @ts-expect-error the catalogue declares no `name`
      ordering: ['name'],
    });
    const shadowingRelation = defineResource({
      ...scratch,
      name: 'shadowing-relation',
      table: 'scratch_shadowing_relation',
      fields: { ...catalogue, position: positionField('Place.') },
      // @ts-expect-error a relation must not take the name of a field a preset added
      relations: { position: fk('scratch/kind', { onDelete: 'cascade', description: 'Kind.' }) },
    });
    expect(() => compileDeclarations([kind, unknownOrdering])).to.throw('ordering names "name", which is not an orderable field.');
    expect(() => compileDeclarations([kind, shadowingRelation])).to.throw('relation "position" has the name of a field.');
  });
});
