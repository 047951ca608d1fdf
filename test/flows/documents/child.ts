/**
 * Child process for the documents kill -9 test: runs the documents job in a loop against the parent's sandbox
 * and demo ERP until a run finds nothing left to send. With killAtStep it kills itself with SIGKILL at that step
 * (before and after each upload, create, ERP mark and reaction write), so every crash window is reached;
 * otherwise the parent kills it at a random moment.
 */
import { createApiClient } from '../../../src/client/index.js';
import type { DocumentReactionSink, DocumentSource } from '../../../src/connector-contract/index.js';
import { createDocumentsJob } from '../../../src/flows/documents/job.js';
import { documentsOptionsSchema } from '../../../src/flows/documents/options.js';
import type { DocumentsApi } from '../../../src/flows/documents/api.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore } from '../../../src/state/index.js';
import { SqliteDriver } from '../../../src/kit/sql/sqlite-driver.js';
import { SqlDocumentSource } from '../../../connectors/sql/erp-documents.js';
import { SqlDocumentReactionSink } from '../../../connectors/sql/erp-reactions.js';
import { demoErpStatements } from '../../../connectors/sql/demo-erp/statements.js';
import { jobContext } from '../job-context.js';

interface ChildArgs {
  baseUrl: string;
  apiKey: string;
  stateFile: string;
  erpFile: string;
  killAtStep?: number;
}

const args = JSON.parse(process.env['DOCUMENTS_CHILD'] ?? '{}') as ChildArgs;
let step = 0;
function point(): void {
  step += 1;
  if (step === args.killAtStep) process.kill(process.pid, 'SIGKILL');
}
async function around<T>(call: () => Promise<T>): Promise<T> {
  point();
  const result = await call();
  point();
  return result;
}

const statements = demoErpStatements;
if (statements.documents === undefined || statements.reactions === undefined)
  throw new Error('demo statements');
const driver = new SqliteDriver(args.erpFile);
const realSource = new SqlDocumentSource(driver, statements.documents, 'erp');
const realSink = new SqlDocumentReactionSink(driver, statements.reactions);
const source: DocumentSource = {
  listPendingDocuments: () => realSource.listPendingDocuments(),
  markDocumentSent: (ref, id) => around(() => realSource.markDocumentSent(ref, id)),
};
const sink: DocumentReactionSink = {
  writeDocumentReaction: (reaction) => around(() => realSink.writeDocumentReaction(reaction)),
};
const client = createApiClient({
  baseUrl: args.baseUrl,
  apiKey: args.apiKey,
  retry: { maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 100, deadlineMs: 20_000 },
  rateLimit: { perMinute: 100_000 },
});
const api: DocumentsApi = {
  supplierBuyers: client.supplierBuyers,
  files: { upload: (input, options) => around(() => client.files.upload(input, options)) },
  documents: {
    list: (options) => client.documents.list(options),
    get: (id, options) => client.documents.get(id, options),
    create: (body, options) => around(() => client.documents.create(body, options)),
  },
};

const state = openStateStore({ file: args.stateFile, clock: systemClock });
process.stdout.write('started\n');
const job = createDocumentsJob({
  name: 'docs',
  api,
  source: () => source,
  reactionSink: () => sink,
  connectorName: 'erp',
  options: documentsOptionsSchema.parse({ overlap_ms: 5_000 }),
});
for (let run = 0; run < 20; run += 1) {
  const result = await job.run(jobContext(state, { budgetMs: 60_000, trigger: 'schedule' }));
  if (result.outcome === 'ok' && (result.counts['documents_pending'] ?? 0) === 0) {
    process.stdout.write(`converged ${JSON.stringify(result.counts)}\n`);
    state.close();
    await client.close();
    await driver.close();
    process.exit(0);
  }
}
process.stdout.write('not converged\n');
process.exit(1);
