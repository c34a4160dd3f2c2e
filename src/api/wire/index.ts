/** Wire JSON: decoding, encoding and validation errors. */
export * from './validation-error.ts';
export * from './defaults.ts';
export * from './decode.ts';
export * from './encode.ts';
export * from './answers.ts';
