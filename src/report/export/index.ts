/** Exporting recorded history: a JSON bundle of a time range, optionally redacted with stable tokens. */
export {
  EXPORT_FORMAT,
  EXPORT_VERSION,
  mappingDocument,
  writeExportBundle,
  type ExportOptions,
  type ExportResult,
  type ExportSource,
} from './bundle.ts';
export {
  containsIp,
  escapeUnsafeJson,
  MIN_TEXT_MATCH,
  REDACTED_KINDS,
  Redactor,
  type MappingEntry,
  type RedactedKind,
} from './redact.ts';
