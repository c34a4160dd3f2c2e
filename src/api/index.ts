/** The wire contract of the admin API v2: schemas, codecs, JSON decoding and encoding. */
export * from './schema/index.ts';
export * from './wire/index.ts';
export * from './codec/index.ts';
export * from './safe-text.ts';
