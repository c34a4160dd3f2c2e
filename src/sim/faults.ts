/** API faults of `api_fault` scenario events, applied by the server per operation and call. */
import type { OperationName } from '../api/schema/operations.ts';
import { hash } from './rng.ts';
import { us } from './plan.ts';
import type { ApiFaultKind, ScenarioEvent } from './scenario/types.ts';
import { errorAnswer, HTML_502, type RawAnswer } from './connect.ts';

/** One active fault. */
export interface ActiveFault {
  readonly kind: ApiFaultKind;
  readonly event: ScenarioEvent;
}

/** The faults in force for a call of `op` at t (µs since the world start); `call` picks by ratio. */
export function activeFaults(
  events: readonly ScenarioEvent[],
  op: OperationName,
  t: number,
  seed: number,
  call: number,
): ActiveFault[] {
  const out: ActiveFault[] = [];
  for (const e of events) {
    if (e.kind !== 'api_fault' || e.fault === undefined) continue;
    if (t < us(e.at) || (e.until !== undefined && t >= us(e.until))) continue;
    const ops = e.operations ?? (e.fault === 'licence_missing' ? ['ListKafkaConnections'] : undefined);
    if (ops !== undefined && !ops.includes(op)) continue;
    if (e.ratio !== undefined && hash(seed, e.index, call) / 4294967296 >= e.ratio) continue;
    out.push({ kind: e.fault, event: e });
  }
  return out;
}

/** An answer that replaces the real one entirely, or undefined. */
export function replacingAnswer(f: ActiveFault): RawAnswer | undefined {
  switch (f.kind) {
    case 'unavailable':
      return errorAnswer('unavailable', 'upstream connect error or disconnect/reset before headers (simulated outage)');
    case 'too_many_requests':
      return errorAnswer('resource_exhausted', 'too many requests: another call is in progress on this broker');
    case 'licence_missing':
      return errorAnswer(
        'failed_precondition',
        'this feature requires an enterprise license: the cluster has no valid license installed',
      );
    case 'html':
      return { status: 502, contentType: 'text/html', body: Buffer.from(HTML_502) };
    case 'empty':
      return { status: f.event.status ?? 200, contentType: 'application/json', body: Buffer.alloc(0) };
    default:
      return undefined;
  }
}

/** Replaces the first int64 string (a "123" value) of a JSON tree with `true`. */
function breakType(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(breakType);
  if (v === null || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const x = o[k];
    if (typeof x === 'string' && /^-?[0-9]+$/.test(x)) {
      o[k] = true;
      return true;
    }
    if (typeof x === 'object' && breakType(x)) return true;
  }
  return false;
}

/** Rewrites a successful answer body for faults that damage it. */
export function damageBody(f: ActiveFault, body: string): { status: number; body: string } {
  switch (f.kind) {
    case 'malformed':
      return { status: f.event.status ?? 200, body: `{,${body.slice(1)}` };
    case 'truncated':
      return { status: f.event.status ?? 200, body: body.slice(0, Math.max(1, Math.floor(body.length / 2))) };
    case 'oversize': {
      const size = f.event.size ?? 32 * 1024 * 1024;
      const pad = Math.max(0, size - body.length);
      return { status: 200, body: `{"padding":"${'x'.repeat(pad)}",${body.slice(1)}` };
    }
    case 'wrong_type': {
      const tree = JSON.parse(body) as unknown;
      if (!breakType(tree)) {
        const o = tree as Record<string, unknown>;
        o[Object.keys(o)[0] ?? 'unexpected'] = 42;
      }
      return { status: 200, body: JSON.stringify(tree) };
    }
    default:
      return { status: 200, body };
  }
}
