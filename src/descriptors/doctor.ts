import {describeCommand} from './descriptor.js'

export const doctorCommand = describeCommand({
  spec: {
    args: [],
    flags: {
      json: {type: 'boolean', description: 'print the diagnosis as JSON, nothing else on stdout'},
      fix: {type: 'boolean', description: 'apply the fixes that lose nothing, then check again'},
    },
    // Hosts over ssh: oclif's command (commands/doctor.ts), with a task list of the hosts still asked.
    oclifOnly: ['fleet', 'host'],
  },
  input: ({flags}) => ({json: flags.json, fix: flags.fix}),
  // On a terminal the checks are a task list, and --fix may ask.
  forOclif: (input, terminal) => terminal.stdout && !input.json,
  looksFirst: true,
  run: async (ctx, input) => (await import('../bodies/doctor.js')).doctor(ctx, input),
})
