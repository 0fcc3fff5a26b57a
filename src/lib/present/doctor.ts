import {Diagnosis} from '../doctor/index.js'
import {CheckResult} from '../model/contract.js'
import {HostDiagnosis} from '../fleet/fleet.js'

const MARK: Record<CheckResult['status'], string> = {pass: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip'}

/** Pure: one check as one plain line. */
export const checkLine = (check: Pick<CheckResult, 'id' | 'status' | 'message' | 'fix'>) =>
  `${MARK[check.status]} ${check.id}: ${check.message}${check.fix ? ` (fix: ${check.fix})` : ''}\n`

/** Pure: a diagnosis (and each host's) as plain lines, fixes first. */
export function doctorText(diagnosis: Diagnosis, hosts: HostDiagnosis[] = []): string {
  let text = diagnosis.fixes.map((fix) => `fixed ${fix}\n`).join('') + diagnosis.checks.map(checkLine).join('')
  for (const host of hosts) {
    text += `== ${host.host}: ${host.problem ? `FAIL ${host.problem.message}` : host.ok ? 'ok' : 'FAIL'}\n`
    text += host.checks.map(checkLine).join('')
  }
  return text
}
