/**
 * No generator function under engine/ or resources/ is made per call. V8 gives each generator
 * function (sync or async) a prototype of its own, and the generators of one made per call kept
 * what they reached (a list's statement, its rows, the request) alive through scavenges into the
 * old generation, where only a full mark-compact frees it: about 4 kB promoted per list request,
 * the young collector's work per search doubled (docs/performance.md, "Generators made per call").
 * A generator written at module level (or as a class's method) and handed its values does not.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { dist } from './support/processes.js';

const root = path.resolve(dist, '..');

/** `file:line` of each generator function in `source` written inside another function. */
function generatorsMadePerCall(file: string, source: string): string[] {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node, insideFunction: boolean): void => {
    const fn = ts.isFunctionLike(node) && 'body' in node && node.body !== undefined;
    if (fn && insideFunction && (node as ts.FunctionLikeDeclaration).asteriskToken) {
      found.push(`${file}:${sourceFile.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    }
    ts.forEachChild(node, (child) => visit(child, insideFunction || fn));
  };
  visit(sourceFile, false);
  return found;
}

function sourcesUnder(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => path.join(dir, f));
}

describe('Generators made per call', () => {
  it('are found where they are written, and only there', () => {
    const source = `
      async function* rows(n: number) { yield n; }
      class Store { async *list() { yield 1; } }
      const once = { *[Symbol.iterator]() { yield 1; } };
      function pieces(n: number) { return { async *[Symbol.asyncIterator]() { yield n; } }; }
      const each = (n: number) => function* () { yield n; };
      function handOver(n: number) { return { [Symbol.asyncIterator]: () => rows(n) }; }`;
    expect(generatorsMadePerCall('sample.ts', source)).to.deep.equal(['sample.ts:5', 'sample.ts:6']);
  });

  it('are written nowhere under engine/ or resources/', () => {
    const found = [...sourcesUnder('engine'), ...sourcesUnder('resources')].flatMap((file) => generatorsMadePerCall(file, fs.readFileSync(path.join(root, file), 'utf8')));
    expect(found).to.deep.equal([]);
  });
});
