/** The Connect client of the admin API v2: calls, typed failures, codes and secrets. */
export * from './connect-codes.ts';
export * from './secret.ts';
export * from './call-error.ts';
export * from './options.ts';
export * from './redact.ts';
export * from './connect-client.ts';
export * from './parse-budget.ts';
