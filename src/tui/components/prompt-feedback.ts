/** What the prompt bar says under the text while typing: the filter's error, the time's error, or a hint. Pure. */
import type { ResourceName } from '../../api/schema/resources.ts';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { checkFilterText } from '../data/filter-check.ts';
import type { PromptState } from '../state/prompt.ts';
import { completeViewName, resolveViewName } from '../state/views.ts';
import { outsideRecording, parseTimeInput, TIME_INPUT_HINTS, TimeInputError, type TimeContext } from '../time-input.ts';
import type { PromptFeedback } from './PromptBar.tsx';

/** Feedback for the open prompt. */
export function promptFeedback(
  prompt: PromptState,
  resource: ResourceName | undefined,
  time: TimeContext | undefined,
): PromptFeedback {
  switch (prompt.kind) {
    case 'command': {
      const matches = completeViewName(prompt.text);
      const resolved = resolveViewName(prompt.text);
      if (prompt.text.trim() === '') return { hint: `views: ${matches.join('  ')}   (Tab completes, Enter opens)` };
      if (resolved !== undefined)
        return { hint: `Enter opens ${resolved}${matches.length > 1 ? `   also: ${matches.join('  ')}` : ''}` };
      return matches.length > 0
        ? { hint: `matches: ${matches.join('  ')}` }
        : {
            error: { start: 0, end: prompt.text.length, message: `no view starts with ${JSON.stringify(prompt.text)}` },
            hint: '',
          };
    }
    case 'filter': {
      if (resource === undefined) return { hint: 'this view takes no filter' };
      const check = checkFilterText(prompt.text, resource);
      if (!check.ok) return { error: { start: check.start, end: check.end, message: check.message }, hint: '' };
      if (check.filter === undefined)
        return {
          hint: `filter ${resource}: e.g. state = OPEN AND client_id:"orders*"   (! in front negates, Tab completes fields, Enter applies an empty filter = clear)`,
          shorter: [
            `filter ${resource}: e.g. state = OPEN AND client_id:"orders*"   (! negates, Tab completes)`,
            `e.g. state = OPEN AND client_id:"orders*"   (! negates, Tab completes)`,
            'e.g. state = OPEN   (! negates)',
          ],
        };
      const warning = check.warnings.length > 0 ? `   ▲ ${check.warnings.join('; ')}` : '';
      return {
        hint: `✓ ${check.filter.negate ? 'NOT ' : ''}${check.normalized}${warning}   (Enter applies, Esc clears)`,
        shorter: [`✓ ${check.filter.negate ? 'NOT ' : ''}${check.normalized}${warning}`],
      };
    }
    case 'time': {
      if (time === undefined) return { hint: 'nothing recorded yet' };
      if (prompt.text.trim() === '') return { hint: TIME_INPUT_HINTS[0]!, shorter: TIME_INPUT_HINTS.slice(1) };
      try {
        const at = parseTimeInput(prompt.text, time);
        const outside = outsideRecording(at, time);
        return {
          hint: `✓ ${formatTimestampShort(at)}   (${outside ?? 'Enter goes there'})`,
          shorter: [`✓ ${formatTimestampShort(at)}`],
        };
      } catch (err) {
        const message = err instanceof TimeInputError ? err.message : String(err);
        return { error: { start: 0, end: prompt.text.length, message }, hint: '' };
      }
    }
  }
}
