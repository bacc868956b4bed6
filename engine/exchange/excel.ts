/**
 * exceljs, loaded when a workbook is first read or written: importing it takes about half a
 * second, the largest part of a start (npm run dev restarts on every change), and most processes
 * never import a sheet nor serve a template.
 */
import type ExcelJSModule from 'exceljs';

export type ExcelJS = typeof ExcelJSModule;

export const loadExcel = async (): Promise<ExcelJS> => (await import('exceljs')).default;
