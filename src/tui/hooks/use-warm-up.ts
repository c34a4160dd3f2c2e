/** After the first frame, has the timeline (events, gaps, series) computed in the background, then re-renders. */
import { useEffect } from 'react';
import type { BrowseSource } from '../data/source.ts';

/** Starts the timeline's computation once the frame for `version` is out; `done` re-renders with it. */
export function useWarmUp(source: BrowseSource, version: number, done: () => void): void {
  useEffect(() => {
    if (source.timelineReady()) return undefined;
    let live = true;
    void source.prepareTimeline().then(() => {
      if (live) done();
    });
    return () => {
      live = false;
    };
  }, [source, version, done]);
}
