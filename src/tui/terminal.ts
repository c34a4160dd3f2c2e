/** Entering and leaving the full-screen terminal mode, and putting the terminal back on exit, crash or signal. */

/** Escape sequences: alternate screen on/off, cursor hide/show, clear. */
export const ESC = {
  enter: '\u001b[?1049h\u001b[H\u001b[2J\u001b[?25l',
  leave: '\u001b[?25h\u001b[?1049l',
} as const;

/** What the terminal guard writes to and resets. */
export interface TerminalStreams {
  readonly stdout: { write(chunk: string): unknown };
  readonly stdin?: { readonly isTTY?: boolean; setRawMode?(mode: boolean): unknown };
}

/** Restores the terminal exactly once, however the browser ends. */
export class TerminalGuard {
  #restored = false;
  readonly #streams: TerminalStreams;
  readonly #onExit = (): void => this.restore();

  /** Switches to the alternate screen and arranges for the restore on process exit. */
  constructor(streams: TerminalStreams) {
    this.#streams = streams;
    streams.stdout.write(ESC.enter);
    process.once('exit', this.#onExit);
  }

  /** Leaves raw mode and the alternate screen, shows the cursor; later calls do nothing. */
  restore(): void {
    if (this.#restored) return;
    this.#restored = true;
    process.off('exit', this.#onExit);
    try {
      if (this.#streams.stdin?.isTTY === true) this.#streams.stdin.setRawMode?.(false);
    } catch {
      // the stream may already be closed; the escape sequences below still apply
    }
    this.#streams.stdout.write(ESC.leave);
  }
}
