/** Access rules are checked when the registry boots: each mistake stops the start, naming the resource and the rule. */
import { expect } from 'chai';
import type { AccessRule, ObjectAccess, ResourceDeclaration } from '../engine/declare/index.js';
import { Registry, loadDeclarations } from '../engine/registry/registry.js';

const declarations = await loadDeclarations();

/** Boots the registry with `access` declared on resource `key` instead of its own. */
const bootWith = (key: string, access: ObjectAccess) => () =>
  new Registry({
    resources: declarations.resources.map((d): ResourceDeclaration => (`${d.module}/${d.name}` === key ? { ...d, access } : d)),
    batches: declarations.batches,
  });
const view = (rule: AccessRule): ObjectAccess => ({ view: rule });

describe('access rules checked at boot', () => {
  it('boots with the declared rules', () => {
    expect(() => new Registry(declarations)).to.not.throw();
  });

  const cases: [string, string, ObjectAccess, string][] = [
    ['a field that is not stored', 'dms/folder', view({ field: 'nope', in: ['x'] }), 'Resource "dms/folder": access rule view: "nope" is not a stored field.'],
    ['a value the enum lacks', 'dms/folder', view({ field: 'visibility', in: ['secret'] }), 'access rule view: "visibility" has no value "secret".'],
    ['a string for a boolean', 'dms/folder', view({ field: 'archived', in: ['true'] }), '"archived" is boolean: list true and/or false.'],
    ['a text field', 'dms/folder', view({ field: 'title', in: ['x'] }), '"title" must be an enum, state or boolean field.'],
    ['an empty any', 'dms/folder', view({ any: [] }), 'access rule view: an empty "any".'],
    ['unset on a required key', 'dms/document', view({ unset: 'folder' }), '"folder" is neither an optional foreign key nor a nullable field.'],
    ['unset on a field never served', 'users/user', view({ unset: 'password' }), '"password" is not served, so the audit trail could not judge its past.'],
    ['current on text fields', 'dms/folder', view({ current: { start: 'title', end: 'description' } }), '"current" needs two date fields or two date-time fields.'],
    ['userIs on a key to another resource', 'dms/document', view({ userIs: 'folder' }), '"folder" is not a foreign key to user.'],
    ['among on a foreign key', 'dms/document', view({ among: 'folder', rule: { userIs: 'created_by' } }), '"folder" is not a many-to-many.'],
    [
      'referencedBy without such a key',
      'dms/folder',
      view({ referencedBy: 'dms/documenttype', by: 'folder', rule: { userIs: 'created_by' } }),
      '"dms/documenttype" has no foreign key "folder" to "dms/folder".',
    ],
    [
      'a mistake inside an inline rule, with the way there',
      'dms/document',
      { change: { via: 'folder', rule: { among: 'orgunits', rule: { field: 'colour', in: ['red'] } } } },
      'Resource "dms/document": access rule change: via "folder" → "dms/folder": among "orgunits" → "organisation/orgunit": "colour" is not a stored field.',
    ],
    ['following a missing view rule', 'dms/document', view({ via: 'documenttype', action: 'view' }), '"dms/documenttype" has no view rule to follow.'],
    ['inheriting over a key that is not a tree', 'dms/document', { inherit: { parent: 'folder', when: 'archived' } }, 'access rule inherit: "folder" is not a tree foreign key of the resource.'],
    ['inheriting on a field that is not boolean', 'dms/folder', { inherit: { parent: 'parent', when: 'title' } }, 'access rule inherit: "title" is not a boolean field.'],
    [
      'a rule that follows itself up a tree',
      'dms/folder',
      view({ any: [{ userAmong: 'admins' }, { via: 'parent', action: 'view' }] }),
      'Resource "dms/folder": access rule "dms/folder" view follows itself: "dms/folder" view → via "parent" → "dms/folder" view.',
    ],
  ];
  for (const [what, key, access, message] of cases) {
    it(`refuses ${what}`, () => {
      expect(bootWith(key, access)).to.throw(message);
    });
  }
});
