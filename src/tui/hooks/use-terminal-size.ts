/** The terminal's size, following resizes; a fixed size (tests, benches) wins over the stream's. */
import { useEffect, useState } from 'react';
import { useStdout } from 'ink';

/** Columns and rows of the terminal. */
export interface TerminalSize {
  readonly columns: number;
  readonly rows: number;
}

const FALLBACK: TerminalSize = { columns: 100, rows: 30 };

/** Reads stdout's columns and rows and re-renders on its `resize` events. */
export function useTerminalSize(fixed?: TerminalSize): TerminalSize {
  const { stdout } = useStdout();
  const read = (): TerminalSize => ({
    columns: stdout.columns > 0 ? stdout.columns : FALLBACK.columns,
    rows: stdout.rows > 0 ? stdout.rows : FALLBACK.rows,
  });
  const [size, setSize] = useState<TerminalSize>(read);
  useEffect(() => {
    if (fixed !== undefined) return undefined;
    const onResize = (): void => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, fixed]);
  return fixed ?? size;
}
