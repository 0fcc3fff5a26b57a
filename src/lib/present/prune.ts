import {Problem} from '../model/contract.js'
import {KeptItem, PruneItem} from '../verbs/prune.js'
import {Output} from './listing.js'

/** Pure: one line per item, with what happened to it. */
export const planLines = (items: PruneItem[], verb: string) =>
  items.map((item) => `${verb} ${item.kind} ${item.id ?? ''}${item.id ? ' ' : ''}(${item.reason}): ${item.target}\n`).join('')

/** Pure: what prune did (or would do), what it kept and why; problems to stderr. */
export function pruneText(listed: PruneItem[], kept: KeptItem[], problems: Problem[], dryRun: boolean): Output {
  let stdout = listed.length === 0 ? 'nothing to prune\n' : planLines(listed, dryRun ? 'would remove' : 'removed')
  for (const item of kept) stdout += `kept ${item.id} (${item.reason})${item.record ? `: ${item.record}` : ''}\n`
  return {stdout, stderr: problems.map((p) => `pk: ${p.code}: ${p.message}\n`).join('')}
}
