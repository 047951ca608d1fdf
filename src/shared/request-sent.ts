/**
 * Lets a request just started actually leave before synchronous work (a SQLite commit, a staging insert) holds the
 * thread. Without it a prefetch only queues the request, and the server starts on the next page after that work:
 * the API client's steps before the write are promise continuations, and undici writes a request on a reused
 * keep-alive socket from a setImmediate callback (it first checks the idle socket for a close). Two turns of the
 * event loop cover both.
 */
export async function requestSent(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}
