/**
 * Declared deprecated paths (the registry's redirects): each operation under a successor path
 * gets a twin under the old path that only answers 301, before authentication.
 */
import { responsesOf } from './shared.js';
import { METHODS, ref, type Operation, type Paths } from './types.js';

function twin(op: Operation, successor: string): Operation {
  return {
    operationId: `${op.operationId}_deprecated`,
    summary: `${op.summary} (deprecated path)`,
    description: `Moved to \`${successor}\`: every method answers 301 with \`Location\` keeping the rest of the path and the query. The old path will be removed.`,
    tags: op.tags,
    // the path parameters of the engine's paths: a record's id, and a version of it
    ...(successor.includes('{id}') ? { parameters: [ref('parameters', 'Id'), ...(successor.includes('{version}') ? [ref('parameters', 'Version')] : [])] } : {}),
    responses: responsesOf({}, ['MovedPermanently']),
    security: [],
    deprecated: true,
  };
}

export function deprecatedTwins(paths: Paths, redirects: readonly (readonly [string, string])[]): Paths {
  const twins: Paths = {};
  for (const [old, successor] of redirects) {
    for (const [path, item] of Object.entries(paths)) {
      if (path !== successor && !path.startsWith(`${successor}/`)) continue;
      const oldPath = old + path.slice(successor.length);
      twins[oldPath] = {};
      for (const method of METHODS) {
        const op = item[method];
        if (op) twins[oldPath][method] = twin(op, path);
      }
    }
  }
  return twins;
}
