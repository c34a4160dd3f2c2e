/** The simulated world the crash test's child records (the test rebuilds it to check every answer). */
export const CRASH_WORLD = { seed: 23, connections: 150 } as const;
/** Shadow topics polled per link. */
export const CRASH_TOPICS = 2;
