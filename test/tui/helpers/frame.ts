/** Assertions on frames: size limits and text lookups that do not depend on colours. */
import { expect } from 'vitest';

/** The frame's lines. */
export function lines(frame: string): string[] {
  return frame.split('\n');
}

/** A frame never exceeds rows - 1 lines nor the terminal's width. */
export function expectFits(frame: string, columns: number, rows: number): void {
  const ls = lines(frame);
  expect(ls.length).toBeLessThanOrEqual(rows - 1);
  for (const l of ls) expect(Array.from(l).length).toBeLessThanOrEqual(columns);
}

/** The header line that says where the time cursor is (`at ... poll N/M`). */
export function cursorLine(frame: string): string {
  return lines(frame).find((l) => l.startsWith('at ')) ?? '';
}

/** The breadcrumb line (third line). */
export function crumbs(frame: string): string {
  return lines(frame)[2] ?? '';
}

/** The first table row (selected first, marked `›`). */
export function selectedRow(frame: string): string {
  return lines(frame).find((l) => l.startsWith('›')) ?? '';
}
