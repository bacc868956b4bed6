/**
 * A copy of the compiled project in a temporary directory, with the repository's node_modules:
 * tests declare resources there, run its commands and its service as processes, and never touch
 * the repository's own resources/ or migrations/. `compile` stands in for `npm run build`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import type { TestDatabase } from './database.js';
import { dist, run, startServiceProcess, type Run, type ServiceProcess } from './processes.js';

const repository = path.resolve(dist, '..');

export class ScratchProject {
  readonly root = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-scratch-'));

  constructor(parts: readonly string[] = ['engine', 'resources', 'migrations']) {
    for (const part of parts) fs.cpSync(path.join(dist, part), this.path('dist', part), { recursive: true });
    // the sign-in page is served from the sources, not compiled
    fs.cpSync(path.join(repository, 'engine/http/web'), this.path('engine/http/web'), { recursive: true });
    fs.copyFileSync(path.join(repository, 'package.json'), this.path('package.json'));
    fs.symlinkSync(path.join(repository, 'node_modules'), this.path('node_modules'), 'dir');
  }

  path(...parts: string[]): string {
    return path.join(this.root, ...parts);
  }

  /** Writes a TypeScript source (`resources/x.ts`) as the build would: `dist/resources/x.js`. */
  compile(file: string, source: string): void {
    const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } });
    fs.writeFileSync(this.path('dist', file.replace(/\.ts$/, '.js')), outputText);
  }

  /** Compiles the source migrations the build has not compiled yet; returns their names. */
  buildMigrations(): string[] {
    const sources = fs.existsSync(this.path('migrations')) ? fs.readdirSync(this.path('migrations')) : [];
    const fresh = sources.filter((f) => f.endsWith('.ts') && !fs.existsSync(this.path('dist/migrations', f.replace(/\.ts$/, '.js'))));
    for (const f of fresh) this.compile(`migrations/${f}`, fs.readFileSync(this.path('migrations', f), 'utf8'));
    return fresh;
  }

  /** `npm run manage -- …` of the copy, on `db`. */
  manage(db: TestDatabase, ...args: string[]): Promise<Run> {
    return run(this.path('dist/engine/cli/manage.js'), args, db);
  }

  /** The copy's service on `db`, until stopped. */
  start(db: TestDatabase): Promise<ServiceProcess> {
    return startServiceProcess(db, {}, this.path('dist'));
  }

  remove(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}
