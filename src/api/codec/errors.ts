/** Broad class of a codec failure: bad text, value out of range, or wrong JSON type. */
export type CodecErrorReason = 'syntax' | 'range' | 'type';

/** A wire or literal value that cannot be decoded losslessly; the message is user-readable. */
export class CodecError extends Error {
  /** Stable, machine-readable class of the failure ('syntax' | 'range' | 'type'). */
  readonly reason: CodecErrorReason;

  constructor(reason: CodecErrorReason, message: string) {
    super(message);
    this.name = 'CodecError';
    this.reason = reason;
  }
}

/** Quotes a piece of input for an error message, shortening very long text. */
export function quoteForError(text: string, max = 60): string {
  const shown = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.stringify(shown);
}
