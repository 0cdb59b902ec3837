/**
 * Something wrong with the file as a whole: missing, not text, not CSV, wrong header. Apart from
 * import-records.ts so that the CLI's entry can name it without loading the import's code.
 */
export class ImportFileError extends Error {}
