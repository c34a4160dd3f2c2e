/** Follow mode: while on, re-reads the recorded instants every `intervalMs` and hands over new ones. */
import { useEffect } from 'react';
import type { BrowseSource } from '../data/source.ts';

/** Polls the source for new instants while `on`; calls `onInstants` when they changed. */
export function useFollow(
  source: BrowseSource,
  on: boolean,
  intervalMs: number,
  onInstants: (instants: readonly bigint[]) => void,
): void {
  useEffect(() => {
    if (!on) return undefined;
    const tick = (): void => {
      const fresh = source.refresh();
      if (fresh !== undefined) onInstants(fresh);
    };
    tick();
    const timer = setInterval(tick, intervalMs);
    return () => clearInterval(timer);
  }, [source, on, intervalMs, onInstants]);
}
