// The scope table lives in src/auth/scopes.ts, beside the resource-server middleware that checks
// it (auth/ imports nothing from identity/). Identity's modules and tests keep importing it here.
export * from '../auth/scopes';
