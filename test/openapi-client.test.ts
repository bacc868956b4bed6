/**
 * A client generated from the served document compiles: openapi-typescript turns it into types,
 * and tsc checks a small usage file against them, including calls the types must refuse.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { expect } from 'chai';
import openapiTS, { astToString } from 'openapi-typescript';
import { servedDocument } from './support/openapi-document.js';

const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin/tsc');

/** Typed calls a client writes; each `@ts-expect-error` fails the build if the types let it through. */
const USAGE = `import type { components, operations, paths } from './schema.js';

type Employees = paths['/api/organisation/mitarbeitende']['get']['responses'][200]['content']['application/json'];
type Employee = components['schemas']['OrganisationMitarbeitende'];
type EmployeeQuery = NonNullable<operations['organisation_mitarbeitende_list']['parameters']['query']>;
type NewEmployee = paths['/api/organisation/mitarbeitende']['post']['requestBody']['content']['application/json'];
type Created = paths['/api/organisation/mitarbeitende']['post']['responses'][201]['content']['application/json'];
type Invalid = components['schemas']['ValidationError'];
type Moved = paths['/api/dms/batch_move']['post']['responses'][200]['content']['application/json'];
type Me = paths['/api/auth/me']['get']['responses'][200]['content']['application/json'];

async function listEmployees(query: EmployeeQuery): Promise<Employees> {
  const res = await fetch('/api/organisation/mitarbeitende?' + new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])));
  return (await res.json()) as Employees;
}

export async function usage(): Promise<string[]> {
  const employees: Employee[] = await listEmployees({ archived: false, employment_type: 'intern', ordering: ['-created'], limit: 10 });
  const body: NewEmployee = { vorname: 'Ada', nachname: 'Lovelace', email: null, orgunit_id: 3 };
  const created: Created = { ...employees[0]!, vorname: body.vorname };
  const supervisor: number | null = created.supervisor;
  const moved: number = ({ moved: 2 } satisfies Moved).moved;
  const permissions: string[] = ({} as Me).permissions;
  const errors: string[] | undefined = ({} as Invalid)['vorname'];
  // @ts-expect-error vorname and nachname are required
  const incomplete: NewEmployee = { vorname: 'Ada' };
  // @ts-expect-error archived is a boolean
  const badQuery: EmployeeQuery = { archived: 'yes' };
  // @ts-expect-error ordering names orderable fields only
  const badOrdering: EmployeeQuery = { ordering: ['-no_such_field'] };
  // @ts-expect-error employment_type is one of its enum values
  const badType: NewEmployee = { vorname: 'A', nachname: 'B', employment_type: 'freelance' };
  return [String(supervisor), String(moved), ...permissions, ...(errors ?? []), String(incomplete), String(badQuery), String(badOrdering), String(badType)];
}
`;

describe('OpenAPI client generation', () => {
  it('generates types with openapi-typescript that a typed client compiles against', async function () {
    this.timeout(60_000);
    const doc = await servedDocument();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-openapi-client-'));
    try {
      const source = astToString(await openapiTS(structuredClone(doc) as unknown as Parameters<typeof openapiTS>[0]));
      expect(source).to.include('organisation_mitarbeitende_list');
      fs.writeFileSync(path.join(dir, 'schema.ts'), source);
      fs.writeFileSync(path.join(dir, 'usage.ts'), USAGE);
      const args = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--lib', 'es2022,dom', 'usage.ts'];
      const result = await promisify(execFile)(process.execPath, [tsc, ...args], { cwd: dir }).then(
        () => '',
        (err: { stdout?: string }) => err.stdout ?? String(err),
      );
      expect(result).to.equal('');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
