// Ends the current task of the event loop (as a goroutine would yield to the Go scheduler), so that
// I/O that arrived meanwhile (a health probe, other requests) is served before the caller goes on.
// One setImmediate is not enough: from an I/O callback (a request body's end, a worker thread's
// answer) it runs in the same turn of the loop, before the loop polls for I/O again; the second
// one runs after that poll.
export const nextTask = (): Promise<void> =>
  new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
