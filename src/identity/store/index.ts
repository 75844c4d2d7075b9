// The identity service's storage: every D1 read and write of identity lives behind these named
// operations (the way openauth keeps storage behind a small interface), so handlers read as
// `codes.consume(…)`, `grants.revokeLive(…)`, `throttle.reserve(…)`, `sessions.create(…)`.
// Each operation takes the D1 binding (or a drizzle handle, store/handle.ts) first.
export * as clients from './clients';
export * as codes from './codes';
export * as grants from './grants';
export * as housekeeping from './housekeeping';
export * as jtis from './jtis';
export * as keys from './keys';
export * as pending from './pending';
export * as refreshTokens from './refresh-tokens';
export * as sessions from './sessions';
export * as tenants from './tenants';
export * as throttle from './throttle';
export * as tokenState from './token-state';
export * as users from './users';
export { asDb, type DbLike } from './handle';
