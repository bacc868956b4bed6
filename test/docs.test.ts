/**
 * The repository's documents against the code, so they cannot drift: every permission name in
 * docs/permissions.md, the README's resource counts and the resources whose writes leave the one statement.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { carriesAccess } from '../engine/access/grants.js';
import { guardsRights } from '../engine/access/privileges.js';
import { permissionOf, type Resource } from '../engine/registry/resource.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { permissionRows } from './support/permission-table.js';
import { dist } from './support/processes.js';

const root = path.resolve(dist, '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
/** Text with its line breaks and indents as single spaces, so wrapping does not matter. */
const flat = (text: string) => text.replace(/\s+/g, ' ');
const registry = await loadRegistry();

describe('documents', () => {
  it('docs/permissions.md lists every permission name the declarations define, and no other', () => {
    const documented = read('docs/permissions.md')
      .split('\n')
      .filter((line) => line.startsWith('| /api/'));
    const expected = permissionRows(registry);
    expect(documented, `docs/permissions.md should have these rows:\n${expected.join('\n')}\n`).to.deep.equal(expected);
  });

  it('docs/permissions.md states the rule the names follow, with every exception to it', () => {
    const text = flat(read('docs/permissions.md'));
    expect(text).to.include('A name is `<app>.<action>_<model>`');
    // the plain rule: the path's first segment, and its last one without - and _
    for (const r of [...registry.resources, ...registry.tables].filter((t) => permissionOf(t, 'view') !== undefined)) {
      const segments = r.path.split('/').slice(2);
      const [app, model] = r.permissions.view.split('.view_') as [string, string];
      if (app !== segments[0]) expect(text, r.path).to.include(`whose app is \`${app}\``);
      if (model !== segments.at(-1)!.replace(/[-_]/g, '')) expect(text, r.path).to.include(`whose model is \`${model}\``);
    }
  });

  it('the README counts the declared resources, and those seed fills, as they are', () => {
    const readme = flat(read('README.md'));
    const modules = registry.resources.filter((r) => r.declaration.module !== 'users');
    expect(readme).to.include(`${registry.resources.length} resources (${modules.length} in the modules, plus users and groups)`);
    expect(readme).to.include(`records of each of the ${modules.length} module resources`);
    expect(readme).to.include(`"Seeded ${modules.length} resources"`);
  });

  it('the README names the resources whose writes leave the one statement, as the declarations decide', () => {
    const readme = flat(read('README.md'));
    /** The paths the README's item starting with `label` names. */
    const listed = (label: string): string[] => {
      const start = readme.indexOf(`- **${label}**`);
      expect(start, label).to.be.at.least(0);
      const next = readme.indexOf('- **', start + 1);
      const item = readme.slice(start, next < 0 ? readme.indexOf('## ', start) : next);
      return [...item.matchAll(/`(\/api\/[^`]+)`/g)].map((m) => m[1]!);
    };
    const paths = (test: (r: Resource) => boolean) => registry.resources.filter(test).map((r) => r.path);
    expect(listed('The statement in a transaction with checks in the process, for everyone but superusers')).to.deep.equal(
      paths((r) => guardsRights(r) || carriesAccess(registry.resources, r)),
    );
    expect(listed('Updates between BEGIN and COMMIT')).to.deep.equal(paths((r) => r.rules.some((rule) => rule.kind === 'order')));
    expect(listed('Updates setting a password end the user\'s other sessions in the same transaction')).to.deep.equal(paths((r) => r.fields.some((f) => f.spec.type === 'password')));
  });
});
