/**
 * The assets domain's store: the only code that names its tables (`assets`, `folders`, `blobs`,
 * `artifacts`, `anonymous_tokens`). One file per table.
 */
export * from './assets';
export * from './artifacts';
