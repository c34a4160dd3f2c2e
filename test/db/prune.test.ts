import { describe, expect, it } from 'vitest';
import {
  createHistoryReader,
  createHistoryWriter,
  HistoryQueryError,
  openDatabase,
  openHistoryMaintenance,
} from '../../src/db/index.ts';
import { generateConnectionPolls } from '../helpers/connection-answers.ts';
import { failedRecord, LIST_REQUEST, okRecord, tempDbPath } from './fixtures.ts';
import { shadowLinkAnswer, upgradeAnswer } from './small-answers.ts';
import { sqliteOf } from '../helpers/sqlite-handle.ts';

const MIN = 60_000_000_000n;

describe('prune, vacuum and stats', () => {
  it('deletes whole polls older than T and what only they referenced; the rest reads the same', () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    const writer = createHistoryWriter(db, { batchFrames: 3 });
    const polls = generateConnectionPolls({ connections: 120, churn: 0.1, polls: 20, seed: 8 });
    const ids = polls.map((p, i) => {
      writer.writePoll(
        okRecord('GetShadowLink', shadowLinkAnswer(i % 3), {
          at: p.at + 1n,
          request: { name: 'dr-link' },
          target: 'dr-link',
        }),
      );
      writer.writePoll(okRecord('GetUpgradeStatus', upgradeAnswer(i), { at: p.at + 2n, request: {} }));
      if (i % 4 === 0)
        writer.writePoll(
          failedRecord(
            'GetIcebergStatus',
            { code: 'unavailable', kind: 'transport', message: 'x' },
            { at: p.at + 3n, request: { topicsFilter: [] } },
          ),
        );
      return writer.writePoll(okRecord('ListKafkaConnections', p.answer, { at: p.at, request: LIST_REQUEST }));
    });
    const reader = createHistoryReader(db);
    const maintenance = openHistoryMaintenance(db);
    const cut = polls[10]!.at;
    // the reader has read (and cached) what the prune removes: it must notice the prune
    ids.forEach((id, i) => expect(reader.reconstructAnswer(id).answer).toEqual(polls[i]!.answer));
    const before = maintenance.stats();
    const kept = ids.slice(9); // poll 9 shares its batch (9, 10, 11) with newer polls
    const result = maintenance.prune(cut);
    expect(result.polls).toBeGreaterThan(0);
    expect(result.connections).toBeGreaterThan(0);
    expect(result.connectionBatches).toBe(3);
    expect(reader.polls({ operation: 'ListKafkaConnections' }).map((p) => p.id)).toEqual(kept);
    expect(reader.polls({ operation: 'GetShadowLink' }).every((p) => p.startTime >= cut)).toBe(true);
    kept.forEach((id, k) => expect(reader.reconstructAnswer(id).answer).toEqual(polls[9 + k]!.answer));
    expect(() => reader.reconstructAnswer(ids[0]!)).toThrow(HistoryQueryError);
    const after = maintenance.stats();
    expect(after.polls).toBeLessThan(before.polls);
    expect(after.entities.connections!).toBeLessThan(before.entities.connections!);
    expect(sqliteOf(db).pragma('foreign_key_check')).toEqual([]);
    expect(sqliteOf(db).pragma('integrity_check', { simple: true })).toBe('ok');
    // the writer notices the prune and carries on
    const next = generateConnectionPolls({ connections: 120, churn: 0.1, polls: 21, seed: 8 })[20]!;
    const id = writer.writePoll(okRecord('ListKafkaConnections', next.answer, { at: next.at, request: LIST_REQUEST }));
    expect(reader.reconstructAnswer(id).answer).toEqual(next.answer);
    expect(reader.stateAt('connections', next.at).rows).toEqual(next.answer.connections);
    maintenance.vacuum();
    expect(maintenance.stats().fileBytes).toBeLessThan(before.fileBytes);
    kept.forEach((k, i) => expect(reader.reconstructAnswer(k).answer).toEqual(polls[9 + i]!.answer));
    writer.close();
  });

  it('a reader that read before a prune (by another handle) reads what was written after it, not its caches', () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    const writer = createHistoryWriter(db, { batchFrames: 2 });
    const old = generateConnectionPolls({ connections: 40, churn: 0.2, polls: 5, seed: 11 });
    const write = (p: (typeof old)[number]): bigint =>
      writer.writePoll(okRecord('ListKafkaConnections', p.answer, { at: p.at, request: LIST_REQUEST }));
    old.forEach(write);
    const reader = createHistoryReader(db);
    for (const p of old) expect(reader.stateAt('connections', p.at).rows).toEqual(p.answer.connections);
    // everything goes: the ids of batches, entities and versions start again from 1
    const other = openDatabase(path);
    openHistoryMaintenance(other).prune(old.at(-1)!.at + MIN);
    other.close();
    const fresh = generateConnectionPolls({ connections: 40, churn: 0.2, polls: 5, seed: 12 }).map((p) => ({
      ...p,
      at: p.at + 100n * MIN,
    }));
    fresh.forEach(write);
    for (const p of fresh) expect(reader.stateAt('connections', p.at).rows).toEqual(p.answer.connections);
    writer.close();
  });

  it('plans exactly what prune then removes, with reads only (open batches included)', () => {
    for (const k of [4, 10, 19, 25]) {
      const path = tempDbPath();
      const db = openDatabase(path);
      const writer = createHistoryWriter(db, { batchFrames: 3 });
      const polls = generateConnectionPolls({ connections: 60, churn: 0.2, polls: 20, seed: 3 });
      polls.forEach((p, i) => {
        writer.writePoll(
          okRecord('GetShadowLink', shadowLinkAnswer(i % 3), {
            at: p.at + 1n,
            request: { name: 'dr-link' },
            target: 'dr-link',
          }),
        );
        if (i < 12) writer.writePoll(okRecord('GetUpgradeStatus', upgradeAnswer(i), { at: p.at + 2n, request: {} }));
        writer.writePoll(okRecord('ListKafkaConnections', p.answer, { at: p.at, request: LIST_REQUEST }));
      });
      const cut = k < polls.length ? polls[k]!.at : polls[polls.length - 1]!.at + MIN;
      const maintenance = openHistoryMaintenance(db);
      const changes = db.sqlite.prepare('SELECT total_changes()').pluck();
      const before = changes.get();
      const plan = maintenance.planPrune(cut);
      expect(changes.get(), 'a plan writes nothing').toBe(before);
      const result = maintenance.prune(cut);
      expect(
        {
          polls: plan.polls,
          connectionBatches: plan.connectionBatches,
          connections: plan.connections,
          versions: plan.versions,
          documents: plan.documents,
        },
        `cut at poll ${k}`,
      ).toEqual(result);
      // GetUpgradeStatus stopped after poll 11: a cut after it empties that operation
      expect(plan.emptied.map((e) => e.operation)).toEqual(
        k > 11 ? (k >= 20 ? ['GetShadowLink', 'GetUpgradeStatus', 'ListKafkaConnections'] : ['GetUpgradeStatus']) : [],
      );
      writer.close();
    }
  });

  it('counts entities and samples per resource', () => {
    const db = openDatabase(tempDbPath());
    const writer = createHistoryWriter(db);
    const polls = generateConnectionPolls({ connections: 50, churn: 0.1, polls: 4, seed: 3 });
    for (const p of polls)
      writer.writePoll(okRecord('ListKafkaConnections', p.answer, { at: p.at, request: LIST_REQUEST }));
    writer.writePoll(
      okRecord('GetShadowLink', shadowLinkAnswer(1), { at: MIN, request: { name: 'dr-link' }, target: 'dr-link' }),
    );
    const s = openHistoryMaintenance(db).stats();
    expect(s.samples.connections).toBe(polls.reduce((n, p) => n + p.answer.connections.length, 0));
    expect(s.entities.connections).toBe(new Set(polls.flatMap((p) => p.answer.connections.map((c) => c.uid))).size);
    expect(s.entities['shadow-topics']).toBe(2);
    expect(s.samples['shadow-partitions']).toBe(7);
    expect(s.entities['shadow-tasks']).toBe(3);
    expect(s.resources.connections!.bytesPerSample).toBeGreaterThan(0);
    writer.close();
  });

  it('refuses to prune a read-only database', () => {
    const path = tempDbPath();
    openDatabase(path).close();
    const ro = openDatabase(path, { readonly: true });
    expect(() => openHistoryMaintenance(ro).prune(0n)).toThrow(/read-only/);
    expect(() => openHistoryMaintenance(ro).vacuum()).toThrow(/read-only/);
    ro.close();
  });
});
