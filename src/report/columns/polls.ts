/** Columns of `polls` (the recorded poll attempts). */
import type { PollRow } from '../../api/schema/resources.ts';
import { formatBytes, formatDuration, formatTime, NONE } from '../format-units.ts';
import { cell, numberColumn, textColumn, type ColumnModel } from './types.ts';

/** The column model of polls. */
export const pollColumns: ColumnModel<PollRow> = {
  resource: 'polls',
  label: (p) => `poll ${p.id} (${cell(p.operation)}${p.target === '' ? '' : ` ${cell(p.target)}`})`,
  columns: [
    numberColumn('id', 'ID', (p) => String(p.id), { orderBy: 'id', identity: true }),
    textColumn('time', 'TIME', (p) => formatTime(p.startTime), { orderBy: 'start_time' }),
    textColumn('operation', 'OPERATION', (p) => cell(p.operation), { orderBy: 'operation' }),
    textColumn('target', 'TARGET', (p) => cell(p.target), { orderBy: 'target' }),
    textColumn('outcome', 'OUTCOME', (p) => cell(p.outcome), {
      tone: (p) => (p.outcome === 'ok' ? 'ok' : 'error'),
      orderBy: 'outcome',
    }),
    numberColumn('duration', 'DURATION', (p) => formatDuration(p.duration), { orderBy: 'duration desc' }),
    numberColumn('bytes', 'BYTES', (p) => formatBytes(p.bytes), { orderBy: 'bytes desc' }),
    numberColumn('rows', 'ROWS', (p) => String(p.rowsReturned), { orderBy: 'rows_returned desc' }),
    numberColumn('http', 'HTTP', (p) => (p.httpStatus === 0 ? NONE : String(p.httpStatus)), { wide: true }),
    numberColumn('total', 'TOTAL', (p) => String(p.totalSize), { wide: true }),
    numberColumn('fanout', 'FANOUT', (p) => String(p.fanoutCalls), { wide: true }),
    textColumn('coverage', 'COVERAGE', (p) => cell(p.coverage), {
      wide: true,
      tone: (p) => (p.coverage === 'truncated' ? 'warn' : undefined),
    }),
    textColumn('scheduled', 'SCHEDULED', (p) => formatTime(p.scheduledTime), { wide: true }),
    textColumn('message', 'MESSAGE', (p) => cell(p.message), { wide: true }),
  ],
};
