#!/usr/bin/env node
// A stand-in for an agent's model API on 127.0.0.1, for capturing the agents' real screens without a key:
// MODE=hang holds every request open (the agent shows that it works), MODE=fail answers 500 (it retries,
// then fails), MODE=auth answers 401. Prints its port. Bounded: it exits by itself after LIFETIME seconds.
import {createServer} from 'node:http'

const mode = process.env.MODE ?? 'hang'
const server = createServer((req, res) => {
  let body = ''
  req.on('data', (d) => (body += d))
  req.on('end', () => {
    process.stderr.write(`${mode} ${req.method} ${req.url} ${body.slice(0, 120)}\n`)
    if (mode === 'hang') return // never answered
    const status = mode === 'auth' ? 401 : 500
    res.writeHead(status, {'content-type': 'application/json'})
    res.end(JSON.stringify({error: {message: mode === 'auth' ? 'invalid api key' : 'internal error (fake)', type: 'server_error', code: status}}))
  })
})
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
setTimeout(() => process.exit(0), Number(process.env.LIFETIME ?? 600) * 1000).unref()
