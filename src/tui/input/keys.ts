/** Keypress normalisation: ink's (input, key) pair to one key name the keymap understands. Pure. */

/** The subset of ink's Key flags this module reads. */
export interface KeyFlags {
  readonly upArrow?: boolean;
  readonly downArrow?: boolean;
  readonly leftArrow?: boolean;
  readonly rightArrow?: boolean;
  readonly pageUp?: boolean;
  readonly pageDown?: boolean;
  readonly home?: boolean;
  readonly end?: boolean;
  readonly return?: boolean;
  readonly escape?: boolean;
  readonly ctrl?: boolean;
  readonly tab?: boolean;
  readonly shift?: boolean;
  readonly backspace?: boolean;
  readonly delete?: boolean;
  readonly meta?: boolean;
}

/**
 * Names a keypress: `up`, `down`, `left`, `right`, `pgup`, `pgdn`, `home`, `end`, `enter`,
 * `esc`, `tab`, `backspace`, `ctrl+<letter>`, or the printable text itself (`j`, `G`, `[`, `:`).
 * A paste of several characters keeps its text. Returns '' for what it cannot name.
 */
export function keyName(input: string, key: KeyFlags): string {
  if (key.upArrow) return 'up';
  if (key.downArrow) return 'down';
  if (key.leftArrow) return 'left';
  if (key.rightArrow) return 'right';
  if (key.pageUp) return 'pgup';
  if (key.pageDown) return 'pgdn';
  if (key.home) return 'home';
  if (key.end) return 'end';
  if (key.return) return 'enter';
  if (key.escape) return 'esc';
  if (key.tab) return key.shift ? 'shift+tab' : 'tab';
  // terminals send DEL (0x7f) for Backspace; ink reports it as `delete`
  if (key.backspace || key.delete) return 'backspace';
  if (key.ctrl && input.length === 1) return `ctrl+${input.toLowerCase()}`;
  if (input === '\u0003') return 'ctrl+c';
  if (input === '\u0013') return 'ctrl+s';
  return input;
}

/** True when the keypress is text to insert into a prompt (printable, no named key or modifier). */
export function isTextKey(input: string, key: KeyFlags): boolean {
  if (input === '' || key.ctrl || key.meta || key.return || key.escape || key.tab || key.backspace || key.delete)
    return false;
  if (
    key.upArrow ||
    key.downArrow ||
    key.leftArrow ||
    key.rightArrow ||
    key.pageUp ||
    key.pageDown ||
    key.home ||
    key.end
  ) {
    return false;
  }
  // eslint-disable-next-line no-control-regex -- tells typed text from control keys
  return !/[\u0000-\u001f\u007f]/.test(input);
}

/** One key of a burst: its name and whether it is printable text. */
export interface BurstKey {
  readonly name: string;
  readonly text: boolean;
}

/** Names one control character the way keyName() would. */
function controlName(ch: string): string {
  const code = ch.charCodeAt(0);
  if (ch === '\r' || ch === '\n') return 'enter';
  if (ch === '\u001b') return 'esc';
  if (ch === '\t') return 'tab';
  if (ch === '\u007f' || ch === '\b') return 'backspace';
  if (code >= 1 && code <= 26) return `ctrl+${String.fromCharCode(code + 96)}`;
  return '';
}

/**
 * The keys of one input event: a named key alone, or, for several characters at once (typed
 * faster than a frame, pasted, or sent by a script), each character in turn. Printable runs
 * stay together when `keepText` (a prompt takes them as one insertion).
 */
export function burstKeys(input: string, key: KeyFlags, keepText: boolean): BurstKey[] {
  const single = keyName(input, key);
  const named = single !== input || input.length <= 1;
  if (named) return [{ name: single, text: isTextKey(input, key) }];
  const out: BurstKey[] = [];
  let run = '';
  const flush = (): void => {
    if (run === '') return;
    if (keepText) out.push({ name: run, text: true });
    else for (const ch of run) out.push({ name: ch, text: true });
    run = '';
  };
  for (const ch of input) {
    // eslint-disable-next-line no-control-regex -- tells typed text from control keys
    if (/[\u0000-\u001f\u007f]/.test(ch)) {
      flush();
      out.push({ name: controlName(ch), text: false });
    } else run += ch;
  }
  flush();
  return out;
}
