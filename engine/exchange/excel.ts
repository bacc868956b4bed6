/**
 * exceljs and unzipper, loaded when a workbook is first read or written: importing them takes more than half a
 * second, the largest part of a start (npm run dev restarts on every change), and most processes
 * never import a sheet nor serve a template.
 */
import type ExcelJSModule from 'exceljs';

export type ExcelJS = typeof ExcelJSModule;

export const loadExcel = async (): Promise<ExcelJS> => (await import('exceljs')).default;

/** An archive opened by its central directory (unzipper takes a fifth of a second to import). */
export const openArchive = async (bytes: Buffer) => (await import('unzipper')).default.Open.buffer(bytes);
