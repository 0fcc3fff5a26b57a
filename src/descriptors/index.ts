import {bgCommand} from './bg.js'
import type {Descriptor} from './descriptor.js'
import {doctorCommand} from './doctor.js'
import {logsCommand} from './logs.js'
import {notifyCommand} from './notify.js'
import {pruneCommand} from './prune.js'
import {resumeCommand} from './resume.js'
import {sendCommand} from './send.js'
import {stopCommand} from './stop.js'
import {usageCommand} from './usage.js'
import {waitCommand} from './wait.js'

/** The commands the fast path serves by their descriptors, by name (ls, attach and the hook aside). */
export const DESCRIPTORS: Readonly<Record<string, Descriptor>> = {
  bg: bgCommand,
  doctor: doctorCommand,
  logs: logsCommand,
  notify: notifyCommand,
  prune: pruneCommand,
  resume: resumeCommand,
  send: sendCommand,
  stop: stopCommand,
  usage: usageCommand,
  wait: waitCommand,
} as unknown as Record<string, Descriptor>
