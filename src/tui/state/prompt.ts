/** The one-line prompts (`:` view, `/` filter, `t` time): text editing as a pure reducer, and completion. */

/** Which prompt is open. */
export type PromptKind = 'command' | 'filter' | 'time';

/** An open prompt and its text. */
export interface PromptState {
  readonly kind: PromptKind;
  readonly text: string;
}

/** Prompt editing actions. */
export type PromptAction =
  | { readonly type: 'prompt-open'; readonly kind: PromptKind; readonly text?: string }
  | { readonly type: 'prompt-insert'; readonly text: string }
  | { readonly type: 'prompt-backspace' }
  | { readonly type: 'prompt-kill' }
  | { readonly type: 'prompt-set'; readonly text: string }
  | { readonly type: 'prompt-close' };

/** Applies a prompt action; undefined means no prompt is open. */
export function reducePrompt(state: PromptState | undefined, action: PromptAction): PromptState | undefined {
  switch (action.type) {
    case 'prompt-open':
      return { kind: action.kind, text: action.text ?? '' };
    case 'prompt-close':
      return undefined;
    default:
      if (state === undefined) return state;
  }
  switch (action.type) {
    case 'prompt-insert':
      return { ...state, text: state.text + action.text.replace(/[\r\n]+/g, ' ') };
    case 'prompt-backspace': {
      const chars = Array.from(state.text);
      chars.pop();
      return { ...state, text: chars.join('') };
    }
    case 'prompt-kill':
      return { ...state, text: '' };
    case 'prompt-set':
      return { ...state, text: action.text };
  }
}

/** The filter prompt's text split into the negation flag (`/!`) and the expression proper. */
export function splitNegation(text: string): { negate: boolean; expr: string; offset: number } {
  return text.startsWith('!')
    ? { negate: true, expr: text.slice(1), offset: 1 }
    : { negate: false, expr: text, offset: 0 };
}

/** The longest common prefix of some strings. */
export function commonPrefix(words: readonly string[]): string {
  if (words.length === 0) return '';
  let prefix = words[0] as string;
  for (const w of words) while (!w.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/**
 * Tab completion of the last word of `text` among `candidates`: the unique candidate, or the
 * longest common prefix of several. Returns the new text and the candidates that matched.
 */
export function completeLastWord(text: string, candidates: readonly string[]): { text: string; matches: string[] } {
  const m = /[A-Za-z0-9_.]*$/.exec(text);
  const word = m ? m[0] : '';
  const head = text.slice(0, text.length - word.length);
  const matches = candidates.filter((c) => c.startsWith(word));
  if (matches.length === 0) return { text, matches };
  const completed = matches.length === 1 ? (matches[0] as string) : commonPrefix(matches);
  return { text: head + (completed.length > word.length ? completed : word), matches };
}
