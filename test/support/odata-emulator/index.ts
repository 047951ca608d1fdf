/** Emulated OData ERPs (SAP Business One Service Layer, Priority REST) for tests and for trying doctor. */
export {
  startOdataEmulator,
  type EmulatedErp,
  type EmulatorOptions,
  type OdataEmulator,
  type SeenRequest,
} from './server.js';
export { FaultPlan, type Fault, type FaultKind } from './faults.js';
export { withoutProperties, metadataXml, type ErpModel } from './model.js';
export { SAP_B1_MODEL } from './sap-b1.js';
export { PRIORITY_MODEL } from './priority.js';
export { ErpStore } from './store.js';
