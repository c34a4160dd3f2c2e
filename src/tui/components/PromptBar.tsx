/** The open prompt (`:` view, `/` filter, `t` time) on two lines: the text, then the error under its position or a hint. */
import React from 'react';
import { Box, Text } from 'ink';
import { sanitizeCell } from '../../api/safe-text.ts';
import type { PromptState } from '../state/prompt.ts';
import { truncate } from '../text.ts';
import type { Theme } from '../theme.ts';

/** What the prompt's input means so far: an error with its span in the text, or a hint. */
export interface PromptFeedback {
  readonly error?: { readonly start: number; readonly end: number; readonly message: string };
  readonly hint: string;
  /** shorter hints, longest first: the first that fits is shown when the hint does not */
  readonly shorter?: readonly string[];
}

/** The longest of the hint and its shorter forms that fits `width` (the shortest, cut, when none does). */
export function hintFor(feedback: PromptFeedback, width: number): string {
  const all = [feedback.hint, ...(feedback.shorter ?? [])];
  return all.find((h) => Array.from(h).length <= width) ?? all[all.length - 1] ?? '';
}

/** Props of the prompt bar. */
export interface PromptBarProps {
  readonly prompt: PromptState;
  readonly feedback: PromptFeedback;
  readonly width: number;
  readonly theme: Theme;
}

const SIGIL: Readonly<Record<PromptState['kind'], string>> = { command: ':', filter: '/', time: 'time: ' };

/** The prompt bar. */
export function PromptBar({ prompt, feedback, width, theme }: PromptBarProps): React.ReactElement {
  const sigil = SIGIL[prompt.kind];
  // the text is user input: shown with controls escaped, one cell per character
  const text = sanitizeCell(prompt.text);
  const err = feedback.error;
  let body: React.ReactElement;
  let second: React.ReactElement;
  if (err !== undefined && text === prompt.text) {
    const start = Math.min(err.start, text.length);
    const end = Math.max(start + 1, Math.min(err.end, text.length + 1));
    const before = text.slice(0, start);
    const bad = text.slice(start, end);
    const after = text.slice(end);
    body = (
      <Text>
        {before}
        <Text {...theme.error} underline>
          {bad === '' ? ' ' : bad}
        </Text>
        {after}
      </Text>
    );
    const caret = `${' '.repeat(sigil.length + start)}${'^'.repeat(Math.max(1, end - start))} `;
    second = (
      <Text wrap="truncate">
        <Text {...theme.error}>{truncate(`${caret}✗ ${sanitizeCell(err.message)}`, width)}</Text>
      </Text>
    );
  } else {
    body = <Text>{text}</Text>;
    const tone = err !== undefined ? theme.error : theme.muted;
    const message = err !== undefined ? `✗ ${sanitizeCell(err.message)}` : sanitizeCell(hintFor(feedback, width));
    second = (
      <Text wrap="truncate" {...tone}>
        {truncate(message, width)}
      </Text>
    );
  }
  return (
    <Box flexDirection="column">
      <Text wrap="truncate">
        <Text {...theme.prompt}>{sigil}</Text>
        {body}
        <Text {...theme.prompt}>▏</Text>
      </Text>
      {second}
    </Box>
  );
}
