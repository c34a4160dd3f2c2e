/** Waiting for pending renders, without importing ink (so a test can decide how ink is first loaded). */

/**
 * Waits for pending renders (and the timeline computed after the first frame): a timer of `ms`,
 * then a turn of the event loop's check phase. React schedules the render of an update made
 * outside an input event (a resize, a hook's timer) with setImmediate; a timer alone can fire
 * before it on a loaded machine, and the frame read is then the one before the update.
 */
export async function tick(ms = 0): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
  await new Promise((r) => setImmediate(r));
}
