import {Flags} from '@oclif/core'
import {fileURLToPath} from 'node:url'

import {PkCommand} from '../command-base.js'
import {Outcome, PkError} from '../lib/model/errors.js'
import {out, say} from '../invocation/output.js'

/** The page's files, shipped in the package beside dist/. */
const ASSETS = fileURLToPath(new URL('../../assets/web', import.meta.url))

export default class Serve extends PkCommand {
  static override summary = 'Serve a page of every session, for a browser or a phone: live screens, answers to dialogs, send, stop, resume.'
  static override description = `One foreground process (Ctrl-C ends it). It prints one line: the address to open, with the access token in
it; the page then keeps the token for itself and signs in with a key of its own. It lists what pk ls lists (one poller for every open page) and
acts only through pk's verbs, under their checks: what pk answer, send, stop or resume would refuse, the page
refuses, in their words. Listens on 127.0.0.1:7433 unless --listen says otherwise; an address other than
loopback needs --tls-cert and --tls-key. From a phone: ssh -L, or tailscale serve (README: From a browser
or a phone). --read-only serves the view with every action refused; a pk in another pid namespace than the
state directory's serves read only by itself. With --fleet (every host of the config) or --host NAME, other
hosts' sessions are listed too (HOST/ID, as pk ls --fleet lists them) and acted on by that host's own pk
over ssh, under its checks. --url prints the address of the newest pk serve that runs now (its token
is kept, 0600, in the state directory) and exits; exit 1 when none runs.`
  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --read-only',
    '<%= config.bin %> serve --listen 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem',
    '<%= config.bin %> serve --url',
    '<%= config.bin %> serve --fleet',
  ]
  static override flags = {
    listen: Flags.string({description: 'HOST:PORT to listen on (default 127.0.0.1:7433; port 0 picks a free one)', default: '127.0.0.1:7433'}),
    'read-only': Flags.boolean({description: 'show sessions; refuse every action'}),
    url: Flags.boolean({description: 'print the address (with the token) of the newest pk serve that runs now, and exit'}),
    'tls-cert': Flags.string({description: 'a PEM certificate: serve HTTPS (needed to listen beyond loopback)'}),
    'tls-key': Flags.string({description: "the certificate's PEM private key"}),
    fleet: Flags.boolean({description: 'also list and act on the sessions of every host in the config, over ssh'}),
    host: Flags.string({description: 'also list and act on the sessions of this host (a configured name or an ssh destination)', multiple: true}),
  }

  protected async execute(): Promise<Outcome | void> {
    const {flags} = await this.parse(Serve)
    const {keptServe, runningServers, signInUrl, startServe} = await import('../lib/web/serve.js')
    const {parseListen} = await import('../lib/web/security.js')
    if (flags.url) {
      const kept = keptServe(this.ctx.readState())
      if (kept === null) throw new PkError('no-server', 'no pk serve has run here yet (or its file is unreadable): start one with pk serve')
      // The address of one that runs now (the newest); none running is said, not an address that answers nothing.
      const running = runningServers(kept).at(-1)
      if (running === undefined)
        throw new PkError('no-server', `no pk serve runs now (the last one was at ${kept.origin}): start one with pk serve, and it keeps its token`)
      out(signInUrl(running.origin, kept.token) + '\n')
      return
    }
    if ((flags['tls-cert'] === undefined) !== (flags['tls-key'] === undefined)) throw new PkError('bad-flags', '--tls-cert and --tls-key go together')
    const tls = flags['tls-cert'] === undefined ? null : {cert: flags['tls-cert'], key: flags['tls-key']!}
    const serving = await startServe({
      ctx: this.ctx,
      listen: parseListen(flags.listen),
      tls,
      readOnly: Boolean(flags['read-only']),
      assetsDir: ASSETS,
      fleet: {fleet: Boolean(flags.fleet), hosts: flags.host ?? []},
    })
    out(serving.url + '\n')
    if (serving.readOnly !== null) say(`pk serve: ${serving.readOnly}\n`)
    await new Promise<void>((resolve) => {
      const stop = () => void serving.close().then(resolve)
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
  }
}
