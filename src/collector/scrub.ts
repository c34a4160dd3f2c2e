/**
 * The last gate before the store: every configured secret, in every encoding, is removed from
 * what a record carries from the server (raw bytes, the decoded answer and its unknown fields,
 * messages, details, paths), and the record says how many occurrences were removed. The
 * client already scrubs error answers; this catches successful answers, whatever client made
 * the call, and text the collector adds itself.
 */
import { Redactor, secretNeedles, type ClientAuth } from '../api/client/index.ts';
import type { PollRecord } from '../db/poll-record.ts';

/** The redactor of a cluster's credentials (empty without authentication). */
export function redactorFor(auth: ClientAuth | undefined): Redactor {
  if (auth === undefined) return new Redactor([]);
  if (auth.kind === 'basic') return new Redactor(secretNeedles(auth.password.reveal(), auth.username));
  return new Redactor(secretNeedles(auth.token.reveal()));
}

/** The record with every secret removed; `redactions` counts them (those the client removed included). */
export function scrubRecord(record: PollRecord, redactor: Redactor, clientRedactions = 0): PollRecord {
  if (redactor.empty) return clientRedactions > 0 ? { ...record, redactions: clientRedactions } : record;
  const before = redactor.replaced;
  const o = record.outcome;
  const raw =
    o.raw === undefined ? undefined : redactor.bytes(Buffer.from(o.raw.buffer, o.raw.byteOffset, o.raw.byteLength));
  const rawHits = redactor.replaced - before;
  let outcome: PollRecord['outcome'];
  if (o.ok) {
    // every string of the decoded answer comes from the raw bytes: clean bytes mean a clean answer
    const answer = raw === undefined || rawHits > 0 ? redactor.deep(o.answer) : o.answer;
    outcome = { ...o, answer, ...(raw === undefined ? {} : { raw }) };
  } else {
    outcome = {
      ...o,
      message: redactor.text(o.message),
      ...(o.details === undefined ? {} : { details: redactor.deep(o.details) }),
      ...(o.path === undefined ? {} : { path: redactor.text(o.path) }),
      ...(raw === undefined ? {} : { raw }),
    };
  }
  const n = redactor.replaced - before + clientRedactions;
  if (n === 0) return record;
  return { ...record, outcome, redactions: n };
}
