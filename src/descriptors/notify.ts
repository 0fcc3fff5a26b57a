import {describeCommand} from './descriptor.js'

export const notifyCommand = describeCommand({
  spec: {
    args: [],
    flags: {
      test: {type: 'boolean', description: 'send a sample through every configured channel and report each result'},
      check: {type: 'string', description: 'only this session (what the hook path runs)', hidden: true},
      fold: {type: 'boolean', description: 'apply pending hook events first, then tell (what the sh hook runs)', hidden: true},
      observe: {type: 'string', description: 'an observer hands in what a screen showed (what watchers run)', hidden: true},
      json: {type: 'boolean', description: 'print the results as JSON'},
    },
  },
  input: ({flags}) => ({test: flags.test, check: flags.check, fold: flags.fold, observe: flags.observe, json: flags.json}),
  looksFirst: false,
  run: async (ctx, input) => (await import('../bodies/notify.js')).notify(ctx, input),
})
