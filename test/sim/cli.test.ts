import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerSim } from '../../src/cli/commands/sim.ts';
import { memoryIo } from '../helpers/memory-io.ts';

describe('flightrec sim', () => {
  it('prints its base URL, links and topics, serves, and stops on the signal', async () => {
    const abort = new AbortController();
    const io = memoryIo({ signal: abort.signal });
    let code: number | undefined;
    const program = new Command('flightrec').exitOverride();
    registerSim(program, io, (c) => {
      code = c;
    });
    const running = program.parseAsync(
      ['sim', '--seed', '3', '--scenario', 'quiet', '--connections', '20', '--links', 'east,west', '--speed', '60'],
      { from: 'user' },
    );
    for (let i = 0; i < 200 && !io.out().includes('topic west/'); i++) await new Promise((r) => setTimeout(r, 10));
    const lines = io.out().trim().split('\n');
    expect(lines[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(lines).toContain('link east');
    expect(lines).toContain('link west');
    expect(lines).toContain('topic east/orders');
    const res = await fetch(`${lines[0]}/platform.core.admin.v2.ShadowLinkService/GetShadowLink`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'connect-protocol-version': '1' },
      body: JSON.stringify({ name: 'west' }),
    });
    expect(res.status).toBe(200);
    abort.abort();
    await running;
    expect(code).toBe(0);
  });

  it('refuses bad flags and unknown scenarios as usage errors', async () => {
    for (const args of [
      ['--speed', '0'],
      ['--port', 'x'],
      ['--scenario', 'nope'],
    ]) {
      const io = memoryIo();
      const program = new Command('flightrec').exitOverride();
      registerSim(program, io, () => undefined);
      await expect(program.parseAsync(['sim', ...args], { from: 'user' })).rejects.toThrow(
        /--speed|--port|no built-in scenario/,
      );
    }
  });
});
