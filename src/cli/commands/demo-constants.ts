/** Names the demo uses, apart from the demo itself so that other commands can mention them cheaply. */

/** The demo's database, next to the working directory. */
export const DEMO_DB = 'flightrec-demo.db';
/** The scenario the demo records. */
export const DEMO_SCENARIO = 'incident';
