import {Context} from '../lib/config/context.js'
import {Diagnosis, diagnose, diagnoseAndFix, failed} from '../lib/doctor/index.js'
import type {HostDiagnosis} from '../lib/fleet/fleet.js'
import {schemaHead} from '../lib/model/contract.js'
import {Outcome, terminalSafe} from '../lib/model/errors.js'
import {doctorText} from '../lib/present/doctor.js'
import {out, printJson} from '../invocation/output.js'

export interface DoctorInput {
  json: boolean
  fix: boolean
}

export interface DoctorMore {
  /** The other hosts' diagnoses (--fleet, --host), asked meanwhile; none by default. */
  remote?: Promise<HostDiagnosis[]>
  /** How a terminal shows this machine's diagnosis (the oclif command's task list); plain text otherwise. */
  render?: (diagnosis: Diagnosis) => Promise<void>
  /** Ask the person before a fix that needs their word (on a terminal only). */
  confirm?: (question: string) => Promise<boolean>
}

/** `pk doctor` once its words are parsed: by the oclif command and the fast path (no hosts, no terminal) alike. */
export async function doctor(ctx: Context, input: DoctorInput, more: DoctorMore = {}): Promise<Outcome> {
  const [diagnosis, remote] = await Promise.all([input.fix ? diagnoseAndFix(ctx, {confirm: more.confirm}) : diagnose(ctx), more.remote ?? Promise.resolve([])])
  const ok = !failed(diagnosis) && remote.every((h) => h.ok)
  if (input.json) {
    printJson({...schemaHead('doctor'), ok, checks: diagnosis.checks, fixes: diagnosis.fixes, ...(more.remote ? {hosts: remote} : {})})
  } else if (more.render) {
    await more.render(diagnosis)
  } else {
    // Names in it (sockets, record files) may hold escape sequences: none reaches the terminal raw.
    out(terminalSafe(doctorText(diagnosis, remote)))
  }
  return ok ? 'ok' : 'not-all-ok'
}
