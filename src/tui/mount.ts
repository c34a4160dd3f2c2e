/** The ink half of `flightrec browse`: renders the App on the terminal. Imported lazily (see live-rendering.ts). */
import React from 'react';
import { render, type Instance } from 'ink';
import { App, type AppProps } from './components/App.tsx';
import { FleetBrowser, type FleetBrowserProps } from './components/FleetBrowser.tsx';

/** The terminal the browser draws on and reads keys from. */
export interface MountStreams {
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
}

/** Renders the browser; the caller waits for its exit and cleans up. */
export function mountApp(props: AppProps, streams: MountStreams): Instance {
  return render(React.createElement(App, props), {
    stdin: streams.stdin,
    stdout: streams.stdout,
    stderr: streams.stderr,
    exitOnCtrlC: false,
    patchConsole: false,
  });
}

/** Renders the browser over several clusters (the clusters view first unless one is chosen). */
export function mountFleet(props: FleetBrowserProps, streams: MountStreams): Instance {
  return render(React.createElement(FleetBrowser, props), {
    stdin: streams.stdin,
    stdout: streams.stdout,
    stderr: streams.stderr,
    exitOnCtrlC: false,
    patchConsole: false,
  });
}
