/** Ask a yes/no question on the terminal; only "y" or "yes" is a yes. */
export async function confirm(question: string): Promise<boolean> {
  const {createInterface} = await import('node:readline/promises')
  const rl = createInterface({input: process.stdin, output: process.stdout})
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim())
  } finally {
    rl.close()
  }
}
