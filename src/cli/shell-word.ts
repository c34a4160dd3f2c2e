/** Words of a command line as a POSIX shell reads them back, for the commands flightrec suggests. */

/** A word safe to paste into a POSIX shell: as it is when plain, else in single quotes. */
export function shellWord(text: string): string {
  if (/^[A-Za-z0-9._/:=@+,%-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
