// One schema module per service area; drizzle-kit reads this index to generate migrations.
export * from './identity';
export * from './platform';
