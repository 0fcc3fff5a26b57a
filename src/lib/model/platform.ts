/**
 * Which platform pk acts for: the machine's own, or PK_PLATFORM (linux|darwin), which tests use to print
 * what pk would install on a Mac (`PK_PLATFORM=darwin pk setup autostart --print`) and to check its pieces
 * on Linux. It picks the service manager, the notifier and tmux's socket directory; processes are read by
 * what the machine has (see proc/source.ts), whatever this says.
 */
export type Platform = 'linux' | 'darwin'

export function platformOf(env: Readonly<Record<string, string | undefined>>, machine: NodeJS.Platform = process.platform): Platform {
  const forced = env.PK_PLATFORM
  if (forced === 'linux' || forced === 'darwin') return forced
  return machine === 'darwin' ? 'darwin' : 'linux'
}
