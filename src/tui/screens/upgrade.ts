/** Upgrade: the finalization state at the cursor, and the members with their versions across time. */
import type { MemberVersion, UpgradeStatus } from '../../api/schema/upgrade.ts';
import { formatTimestampShort } from '../../api/codec/timestamp.ts';
import { sanitizeCell } from '../../api/safe-text.ts';
import type { PanelLine, Screen } from '../data/screen.ts';
import { seg } from '../data/screen.ts';
import type { BrowseSource, VersionStep } from '../data/source.ts';
import { toneToken } from '../data/grid.ts';
import type { StackEntry } from '../state/app.ts';
import { modelOf } from './rows.ts';
import { resourceTable } from './resource-table.ts';
import { toneGlyph } from './tone-glyph.ts';

const time = (at: bigint): string => formatTimestampShort(at).replace(/^\d{4}-\d{2}-\d{2}T/, '');

/** `26.1.0 since 10:00:00Z → 26.2.0 since 10:20:00Z`, the step in force at `at` marked with `▸`. */
export function versionTrail(steps: readonly VersionStep[], at: bigint): string {
  let current = -1;
  steps.forEach((s, i) => {
    if (s.at <= at) current = i;
  });
  return steps
    .map(
      (s, i) => `${i === current ? '▸' : ''}${sanitizeCell(s.release || '?')}${s.alive ? '' : ' (down)'} ${time(s.at)}`,
    )
    .join(' → ');
}

/** Builds the upgrade screen at `at`. */
export function upgradeScreen(source: BrowseSource, entry: StackEntry, at: bigint): Screen {
  const status = source.stateAt<UpgradeStatus>('upgrade', at);
  const now = status.poll?.startTime ?? at;
  const panel: PanelLine[] = [];
  const u = status.rows[0];
  if (u === undefined) panel.push([seg('no upgrade status recorded at or before this instant', 'warn')]);
  else {
    const line: PanelLine = modelOf('upgrade')
      .columns.filter((c) => c.wide !== true)
      .flatMap((c) => {
        const tone = c.tone?.(u);
        const glyph = tone !== undefined ? `${toneGlyph(tone)} ` : '';
        return [
          seg(`${c.header.toLowerCase()} `, 'label'),
          seg(`${glyph}${c.value(u, { now })}  `, toneToken(tone) ?? 'value'),
        ];
      });
    panel.push(line);
  }
  const members = source.stateAt<MemberVersion>('upgrade-members', at);
  const history = source.memberVersions();
  const aliveCol = modelOf('upgrade-members').columns.find((c) => c.id === 'alive');
  const t = resourceTable('upgrade-members', members.rows, entry, {
    now,
    after: [
      {
        id: 'versions',
        header: 'VERSIONS OVER TIME',
        flexible: true,
        fill: true,
        keep: true,
        keepEnd: true,
        min: 20,
        align: 'left',
        value: (m) => versionTrail(history.get(m.nodeId) ?? [], at),
      },
    ],
    glyph: (m) => toneGlyph(aliveCol?.tone?.(m)),
  });
  return { panel, tableTitle: 'Members', grid: t.grid, badge: t.badge, empty: 'no members at this instant' };
}
