/** Lossless codecs for the admin API wire format and the filter dialect's literals. */
export { CodecError, type CodecErrorReason } from './errors.ts';
export {
  type IntWidth,
  INT_RANGES,
  parseIntLiteral,
  decodeWireInt64,
  decodeWireInt32,
  encodeInt64,
  describeValue,
} from './int64.ts';
export { parseWireDuration, formatWireDuration, parseFilterDuration, formatHumanDuration } from './duration.ts';
export {
  UNSET_TIMESTAMP,
  parseTimestamp,
  formatTimestamp,
  formatTimestampShort,
  isUnsetTimestamp,
  timestampFromMillis,
  timestampToMillis,
} from './timestamp.ts';
export {
  type JsonValue,
  JsonSyntaxError,
  JsonDepthError,
  JsonNumber,
  MAX_JSON_DEPTH,
  parseJsonLossless,
  parseJsonLosslessSlow,
  cloneJson,
  stringifyJson,
} from './lossless-json.ts';
