import {describe, expect, it} from 'vitest'

import {httpStatus} from '../../../src/lib/web/server.js'

describe("pk serve's answers", () => {
  it("a verb's exit becomes the HTTP status a page branches on", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 124, 130].map(httpStatus)).toEqual([200, 409, 400, 404, 409, 403, 202, 504, 500])
  })
})
