/** The reader written from the published PRM line table lives beside the connector, which reads the books with it. */
export * from '../../../connectors/hashavshevet/published-reader.js';
