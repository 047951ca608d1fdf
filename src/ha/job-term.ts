/**
 * The term a piece of work began in. Whatever a job starts (its run, the timers and promises of that run) carries
 * the term that was current when it started, through async context, so its writes are fenced to that term: a run
 * of term N that outlives the term is refused even when the same instance wins term N + 1 meanwhile.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Term } from './fence.js';

const boundTerms = new AsyncLocalStorage<Term>();

/** Runs `work` with `term` as the term of everything it starts. */
export function runInTerm<T>(term: Term, work: () => T): T {
  return boundTerms.run(term, work);
}

/** The term the running work began in; undefined for work started outside any term. */
export function boundTerm(): Term | undefined {
  return boundTerms.getStore();
}
