/** Waiting for pending renders, without importing ink (so a test can decide how ink is first loaded). */

/** Waits for pending renders (and the timeline computed after the first frame). */
export function tick(ms = 0): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
