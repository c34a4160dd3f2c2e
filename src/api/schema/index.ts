/** The wire contract: schemas, enums and operations. */
export * from './fields.ts';
export * from './enum-table.ts';
export * from './enums.ts';
export * from './connection.ts';
export * from './shadow-topic.ts';
export * from './shadow-link.ts';
export * from './upgrade.ts';
export * from './iceberg.ts';
export * from './operations.ts';
export * from './resources.ts';
