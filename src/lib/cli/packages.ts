import {createRequire} from 'node:module'

/**
 * npm packages (and node modules) that pk loads only when it needs them, synchronously. Not with
 * `await import()`: `pk ls` runs this code compiled from a V8 code cache (bin/run.js), and there an
 * import() has no loader to call (the one it would need belongs to the build that made the cache). Every
 * package loaded so is CommonJS.
 */
export const loadPackage = createRequire(import.meta.url)
