/**
 * Child of postgres-kill9.test.ts: commits pages to a PostgreSQL state, each page's ledger rows and its cursor in one
 * transaction, and prints `committed <page>` after each commit returns, until it is killed.
 * argv: <url> <rows per page>
 */
import { systemClock } from '../../../src/shared/clock.js';
import { openPgStateStore } from '../../../src/state/postgres/store.js';

const [url, perPage] = process.argv.slice(2);
if (url === undefined || perPage === undefined) throw new Error('usage: pg-page-child <url> <rows per page>');
const state = openPgStateStore({ url, clock: systemClock });
let page = (state.cursors.get('pages')?.watermarkMs ?? 0) + 1;
for (;;) {
  state.transaction(() => {
    for (let row = 0; row < Number(perPage); row += 1) {
      state.ledger.record({ flow: 'pages', connector: 'pg', recordKey: `p${page}-r${row}`, version: '1' });
    }
    state.cursors.save({ stream: 'pages', watermarkMs: page, passCursor: null, passSince: null, passMaxMs: null });
  });
  process.stdout.write(`committed ${page}\n`);
  page += 1;
}
