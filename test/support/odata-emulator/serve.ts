/**
 * Runs an emulated ERP on its own, to try doctor and the flows before the real one is reachable:
 *   node --import tsx test/support/odata-emulator/serve.ts sap-b1-service-layer 50000
 *   node --import tsx test/support/odata-emulator/serve.ts priority-rest 50001
 * SAP: company SBODEMOUS, user manager, password manager. Priority: user apiuser, password apipass, or the
 * personal access token demo-token.
 */
import { startOdataEmulator, type EmulatedErp } from './server.js';

const erp = (process.argv[2] ?? 'sap-b1-service-layer') as EmulatedErp;
if (erp !== 'sap-b1-service-layer' && erp !== 'priority-rest') {
  process.stderr.write('usage: serve.ts sap-b1-service-layer|priority-rest [port]\n');
  process.exit(2);
}
const emulator = await startOdataEmulator({
  erp,
  port: Number(process.argv[3] ?? '0'),
  users: erp === 'priority-rest' ? { apiuser: 'apipass' } : { manager: 'manager' },
  tokens: ['demo-token'],
});
process.stdout.write(`${erp} emulator at ${emulator.serviceUrl}\n`);
const stop = () => void emulator.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
