/** The error of an answer (or request) that does not match the wire contract. */

/** A value at a JSON path that does not match its schema. */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  /** JSON path of the offending value, e.g. `connections[17].totalRequestStatistics.produceBytes` */
  readonly path: string;
  /** what is wrong, without the path: `expected int64, got true` */
  readonly reason: string;

  constructor(path: string, reason: string) {
    super(path ? `${path}: ${reason}` : reason);
    this.path = path;
    this.reason = reason;
  }

  /** The same error one level further out (`segment` is `.name` or `[3]`). */
  within(segment: string): ValidationError {
    const path =
      this.path === ''
        ? segment.replace(/^\./, '')
        : `${segment.replace(/^\./, '')}${this.path.startsWith('[') ? '' : '.'}${this.path}`;
    return new ValidationError(path, this.reason);
  }
}
