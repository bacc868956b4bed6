/**
 * The repository's documents against the code, so they cannot drift: the README is short and links
 * every docs page; the permission names follow the rule docs/permissions.md states and
 * `manage permissions` prints them all; docs/performance.md names the resources whose writes leave
 * the one statement as the declarations decide; every TypeScript block of the README and the docs
 * typechecks as written; and every curl example runs, page by page, against a fresh service.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { carriesAccess } from '../engine/access/grants.js';
import { guardsRights } from '../engine/access/privileges.js';
import { permissionOf, type Resource } from '../engine/registry/resource.js';
import { loadRegistry } from '../engine/registry/registry.js';
import { permissionTable } from '../engine/cli/permissions.js';
import { createTestDatabase, type TestDatabase } from './support/database.js';
import { dist, startServiceProcess, type ServiceProcess } from './support/processes.js';
import { codeBlocks, curlExpectations, docsPages } from './support/doc-blocks.js';

const root = path.resolve(dist, '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
/** Text with its line breaks and indents as single spaces, so wrapping does not matter. */
const flat = (text: string) => text.replace(/\s+/g, ' ');
const registry = await loadRegistry();
const pages = docsPages(root);

describe('documents', () => {
  it('the README is short and links every docs page', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).to.be.below(250);
    const missing = pages.filter((page) => !readme.includes(`](docs/${page})`));
    expect(missing, 'docs pages the README does not link').to.deep.equal([]);
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

  it('`manage permissions` prints every permission name the declarations define', () => {
    const table = permissionTable(registry);
    const printed = new Set([...table.matchAll(/`([\w-]+\.\w+)`/g)].map((m) => m[1]!));
    expect([...registry.permissionNames].filter((name) => !printed.has(name))).to.deep.equal([]);
    for (const b of registry.batches) expect(table).to.include(`| ${b.path} | POST | \`${b.permission}\` |`);
  });

  it('docs/performance.md names the resources whose writes leave the one statement, as the declarations decide', () => {
    const text = flat(read('docs/performance.md'));
    /** The paths the item starting with `label` names. */
    const listed = (label: string): string[] => {
      const start = text.indexOf(`- **${label}**`);
      expect(start, label).to.be.at.least(0);
      const next = text.indexOf('- **', start + 1);
      const item = text.slice(start, next < 0 ? text.indexOf('## ', start) : next);
      return [...item.matchAll(/`(\/api\/[^`]+)`/g)].map((m) => m[1]!);
    };
    const paths = (test: (r: Resource) => boolean) => registry.resources.filter(test).map((r) => r.path);
    expect(listed('The statement in a transaction with checks in the process, for everyone but superusers')).to.deep.equal(
      paths((r) => guardsRights(r) || carriesAccess(registry.resources, r)),
    );
    expect(listed('Updates between BEGIN and COMMIT')).to.deep.equal(paths((r) => r.rules.some((rule) => rule.kind === 'order')));
    expect(listed('Updates setting a password end the user\'s other sessions in the same transaction')).to.deep.equal(paths((r) => r.fields.some((f) => f.spec.type === 'password')));
  });

  it('every TypeScript block of the README and the docs typechecks as written', function () {
    // one program over all blocks and the engine sources they import: seconds on a busy machine
    this.timeout(300_000);
    const blocks = ['README.md', ...pages.map((p) => `docs/${p}`)].flatMap((file) =>
      codeBlocks(read(file))
        .filter((b) => b.lang === 'ts' && !b.excerpt)
        .map((b, i) => ({ file, line: b.line, name: path.join(root, 'resources', `__docs_${file.replace(/\W/g, '_')}_${i}.ts`), text: b.text })),
    );
    expect(blocks.map((b) => b.file)).to.include.members(['README.md', 'docs/declarations.md']);
    const config = ts.parseJsonConfigFileContent(ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile).config, ts.sys, root);
    const options = { ...config.options, noEmit: true };
    const host = ts.createCompilerHost(options);
    const virtual = new Map(blocks.map((b) => [b.name, b.text]));
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (name, language, ...rest) =>
      virtual.has(name) ? ts.createSourceFile(name, virtual.get(name)!, language) : getSourceFile(name, language, ...rest);
    const fileExists = host.fileExists.bind(host);
    host.fileExists = (name) => virtual.has(name) || fileExists(name);
    const readFile = host.readFile.bind(host);
    host.readFile = (name) => virtual.get(name) ?? readFile(name);
    const program = ts.createProgram([...virtual.keys()], options, host);
    const errors = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file && virtual.has(d.file.fileName))
      .map((d) => {
        const block = blocks.find((b) => b.name === d.file!.fileName)!;
        const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
        return `${block.file}:${block.line + 1 + line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(errors).to.deep.equal([]);
  });

  describe('every curl example, run page by page against a fresh service', function () {
    this.timeout(300_000);
    let db: TestDatabase;
    let service: ServiceProcess;
    let work: string;
    before(async () => {
      db = await createTestDatabase();
      service = await startServiceProcess(db);
      // the files the examples upload
      work = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-docs-'));
      fs.writeFileSync(path.join(work, 'report.pdf'), '%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n');
      fs.writeFileSync(path.join(work, 'screenshot.png'), Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64'));
    });
    after(async () => {
      await service.stop();
      await db.drop();
      fs.rmSync(work, { recursive: true, force: true });
    });

    // the API guide first: it makes the records the other pages' examples name
    const curlScript = (page: string) =>
      codeBlocks(read(`docs/${page}`))
        .filter((b) => b.lang === 'sh' && /^\s*(curl|\S+=\$\(curl)/m.test(b.text))
        .map((b) => b.text)
        .join('\n');
    const withExamples = ['api-guide.md', ...pages.filter((p) => p !== 'api-guide.md')].filter((page) => curlScript(page) !== '');
    it('finds the examples', () => expect(withExamples).to.include.members(['api-guide.md', 'permissions-and-visibility.md']));
    for (const page of withExamples) {
      it(`docs/${page}`, () => {
        const script = curlScript(page);
        expect(service.token, 'the first start printed its token').to.be.a('string');
        const statuses = path.join(work, 'statuses');
        fs.writeFileSync(statuses, '');
        const prelude = [
          `TOKEN=${service.token}`,
          `API=${service.url}/api`,
          `H=(-H "Authorization: Token $TOKEN" -H 'Content-Type: application/json')`,
          // each call's status, in order, beside what it prints
          `curl() { command curl -sS -o "$BODY" -w '%{http_code}\\n' "$@" >> ${JSON.stringify(statuses)}; cat "$BODY"; }`,
          `BODY=${JSON.stringify(path.join(work, 'body'))}`,
        ].join('\n');
        const body = script
          .replace(/^(TOKEN|API|H)=.*$/gm, '')
          .replaceAll('http://127.0.0.1:8000', service.url);
        const run = spawnSync('bash', ['-c', `${prelude}\n${body}`], { cwd: work, encoding: 'utf8' });
        const got = fs.readFileSync(statuses, 'utf8').trim().split('\n').filter(Boolean).map(Number);
        const expected = curlExpectations(script);
        const report = `${expected.map((e, i) => `${got[i] ?? '—'} ${e.status ?? '2xx'}  ${e.command}`).join('\n')}\n${run.stdout.slice(-4000)}`;
        expect(got.length, `${run.stderr}\n${report}`).to.equal(expected.length);
        expected.forEach((e, i) => {
          if (e.status) expect(got[i], `${e.command}\n${report}`).to.equal(e.status);
          else expect(got[i], `${e.command}\n${report}`).to.be.within(200, 299);
        });
      });
    }
  });
});
