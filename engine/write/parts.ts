/**
 * How the write statements' parts (CTEs) are named. A CTE hides a table of its name within the
 * statement, so no declared table may start so (registry/compile.ts refuses one).
 */
export const STATEMENT_PARTS = 'w_';
