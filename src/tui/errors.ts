/** Why the browser cannot start: bad usage (exit 2) or a runtime problem (exit 1), with a hint. */

/** The browser refuses to start; `usage` tells the CLI which exit code fits. */
export class BrowseError extends Error {
  override readonly name = 'BrowseError';
  /** true: bad usage (exit 2); false: runtime failure (exit 1) */
  readonly usage: boolean;

  constructor(message: string, usage: boolean) {
    super(message);
    this.usage = usage;
  }
}
