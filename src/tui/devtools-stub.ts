/** Stands in for the optional `react-devtools-core` in the bundle: ink imports it only when DEV is set. */

/** The devtools connection ink would open; here it does nothing. */
export function connectToDevTools(): void {}

/** The default export ink imports. */
const devtools = { connectToDevTools };
export default devtools;
