/**
 * Another service holding the same rows (`--export-sql`), driven with the same scenarios: each
 * peer kind says how a scenario's request reads in the peer's URL shape, which token header it
 * takes, which status a success has there, and which scenarios it cannot express at all.
 */
import type { BenchRequest, Scenario, ScenarioName } from './scenarios.js';

export const PEER_KINDS = ['generic', 'directus', 'drf'] as const;
export type PeerKind = (typeof PEER_KINDS)[number];

/** How a target takes the bench's requests: the service and the ceiling take them as they are. */
export interface Dialect {
  /** The request in the target's URL shape and body. */
  request(req: BenchRequest): BenchRequest;
  /** The Authorization header for a token. */
  authorization(token: string): string;
  /** The status a success of the scenario has at the target. */
  status(scenario: Scenario): number;
  /** Why the target cannot run the scenario; undefined when it can. */
  cannot(scenario: Scenario): string | undefined;
}

export const OWN_DIALECT: Dialect = {
  request: (req) => req,
  authorization: (token) => `Token ${token}`,
  status: (scenario) => scenario.status,
  cannot: () => undefined,
};

const ISSUES = /^\/api\/issue\/issue(?:\/(\d+|aggregate))?$/;

/** The issue id or `aggregate` and the query of a request to the issues, or an error naming a request no peer kind maps (a scenario added without its mapping). */
function issueRequest(req: BenchRequest): { id: string | undefined; query: URLSearchParams } {
  const url = new URL(req.path, 'http://peer');
  const match = ISSUES.exec(url.pathname);
  if (!match) throw new Error(`no peer mapping for ${req.method} ${req.path}`);
  return { id: match[1], query: url.searchParams };
}

/** The issues' columns by the service's filter names. */
const column = (name: string) => (name === 'tracker' ? 'tracker_id' : name);

const FILES = 'the file routes (PUT/GET …/file as raw bytes) are this service\'s own';

/** Why a DRF service cannot run a scenario: it has no standard counterpart there. */
const NOT_IN_DRF: Partial<Record<ScenarioName, string>> = {
  aggregate: 'DRF has no standard aggregate route',
  'csv-export': 'DRF renders no CSV without a package of its own',
  upload: `${FILES}; a DRF service has no standard equivalent`,
  download: `${FILES}; a DRF service has no standard equivalent`,
};

/**
 * Directus REST over tables loaded from the export: the issues are the collection `issue_issue`,
 * their categories an M2M alias field `categories` through `issue_issue_categories`.
 */
const DIRECTUS: Dialect = {
  request(req) {
    const { id, query } = issueRequest(req);
    const aggregate = id === 'aggregate';
    const directus = new URLSearchParams();
    for (const [name, value] of query) {
      if (name === 'search') directus.append('search', value);
      else if (name === 'format') directus.append('export', value);
      else if (name === 'group_by') for (const by of value.split(',')) directus.append('groupBy[]', column(by));
      else directus.append(`filter[${column(name)}][_eq]`, value);
    }
    if (aggregate) directus.append('aggregate[count]', '*');
    // the service answers the category ids with an issue
    else directus.append('fields', '*,categories.category_id');
    // and a whole list unless it is paged
    if (id === undefined || aggregate) directus.append('limit', '-1');
    let body = req.body;
    if (req.method === 'POST' && typeof body === 'string') {
      const { category_ids: categories, ...rest } = JSON.parse(body) as { category_ids: number[] };
      body = JSON.stringify({ ...rest, categories: categories.map((category_id) => ({ category_id })) });
    }
    return { ...req, path: `/items/issue_issue${id && !aggregate ? `/${id}` : ''}?${directus}`, body };
  },
  authorization: (token) => `Bearer ${token}`,
  // Directus answers a create with 200 and the item
  status: (scenario) => (scenario.status === 201 ? 200 : scenario.status),
  cannot: (scenario) => (scenario.name === 'upload' || scenario.name === 'download' ? `${FILES}; Directus keeps files in directus_files` : undefined),
};

/** Django REST Framework's routers end every path with a slash: `/api/issue/issue/7/`, `/api/issue/issue/?tracker=2`. */
const DRF: Dialect = {
  request(req) {
    const [path, query] = req.path.split('?') as [string, string | undefined];
    issueRequest(req);
    return { ...req, path: `${path}/${query === undefined ? '' : `?${query}`}` };
  },
  authorization: OWN_DIALECT.authorization,
  status: OWN_DIALECT.status,
  cannot: (scenario) => NOT_IN_DRF[scenario.name],
};

export const PEER_DIALECTS: Record<PeerKind, Dialect> = { generic: OWN_DIALECT, directus: DIRECTUS, drf: DRF };

/** The scenarios a peer runs, and a note for each it does not: those its kind cannot express, and the viewer's without its token. */
export function peerScenarios(dialect: Dialect, scenarios: readonly Scenario[], hasViewerToken: boolean): { runs: Scenario[]; skipped: Map<ScenarioName, string> } {
  const skipped = new Map<ScenarioName, string>();
  for (const scenario of scenarios) {
    const why = dialect.cannot(scenario) ?? (scenario.as === 'viewer' && !hasViewerToken ? 'no --peer-viewer-token given' : undefined);
    if (why) skipped.set(scenario.name, why);
  }
  return { runs: scenarios.filter((s) => !skipped.has(s.name)), skipped };
}
