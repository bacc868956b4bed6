/**
 * How the write statements' parts (CTEs) are named. A CTE hides a table of its name within the
 * statement, so no declared table may start so (registry/compile.ts refuses one).
 */
export const STATEMENT_PARTS = 'w_';

/** The name of a part of the statement. */
export const part = (name: string): string => `${STATEMENT_PARTS}${name}`;
export const [IN, OLD, V, NEW, REF, DIAG] = [part('in'), part('old'), part('v'), part('new'), part('ref'), part('diag')];
